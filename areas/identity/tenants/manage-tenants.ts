import type { Principal } from '#shared/auth/access-token.ts';
import { isSystemAdmin } from '#shared/auth/tenant-scope.ts';
import { listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, orConflict, updateItem } from '#shared/data/commit.ts';
import { conflict, forbidden, notFound } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { countIntegrationEvents, integrationEventPut } from '#shared/data/integration-events.ts';
import {
  identityKeys,
  tenantSearchText,
  toTenant,
  toTenantDetail,
  toTenantSummary,
  type TenantRecord,
} from '#areas/identity/records.ts';
import { statusMove } from '#areas/identity/tenant-status.ts';
import { getTenant, getTenantOr404, newTenant, planDefaults, statusChange } from '#areas/identity/tenant-model.ts';
import { TENANT_STATUS_CODES, type PlanTypeValue, type TenantStatusName } from '#areas/identity/vocabulary.ts';
import { committedUnless } from '#shared/data/write-one.ts';

export interface TenantListQuery {
  page: number;
  pageSize: number;
  search?: string;
  planType?: number;
  statusFilter?: TenantStatusName;
}

/** The tenant registry: a SystemAdmin sees every tenant, a tenant owner exactly its own, through the same filters. */
export async function listTenants(principal: Principal, q: TenantListQuery) {
  const status = q.statusFilter === undefined ? undefined : TENANT_STATUS_CODES[q.statusFilter];
  if (isSystemAdmin(principal)) {
    const { items, totalCount } = await listNewestFirst(identityKeys.tenants(), {
      page: q.page,
      pageSize: q.pageSize,
      search: q.search,
      where: { planType: q.planType, status } as Record<string, number>,
    });
    return toPage(
      items.map((i) => toTenantSummary(toTenant(i))),
      totalCount,
      q.page,
      q.pageSize,
    );
  }
  const own = principal.tenantId ? await getTenant(principal.tenantId) : undefined;
  const matches =
    !!own &&
    (!q.search || tenantSearchText(own).includes(q.search.toLowerCase())) &&
    (q.planType === undefined || own.planType === q.planType) &&
    (status === undefined || own.status === status);
  const items = matches && q.page === 1 ? [toTenantSummary(own)] : [];
  return toPage(items, matches ? 1 : 0, q.page, q.pageSize);
}

/** The tenant detail of `GET /api/tenants/{slug}` (the slug resolved to `tenantId` by the route's scope). */
export const tenantDetail = async (tenantId: string) => toTenantDetail(await getTenantOr404(tenantId));

export interface NewTenant {
  slug: string;
  name: string;
  email: string;
  phone?: string | null;
  planType: number;
  maxAgents: number;
  maxKnowledgeBases: number;
  maxSeats: number;
}

/** A SystemAdmin's tenant: Active from the start, no trial. */
export async function createTenant(input: NewTenant, actor: Principal) {
  const tenant: TenantRecord = {
    id: crypto.randomUUID(),
    slug: input.slug,
    name: input.name,
    email: input.email,
    phone: input.phone || null,
    planType: input.planType as PlanTypeValue,
    status: TENANT_STATUS_CODES.ACTIVE,
    trialExpiresAt: null,
    maxAgents: input.maxAgents,
    maxKnowledgeBases: input.maxKnowledgeBases,
    maxSeats: input.maxSeats,
    maxTokensPerMonth: planDefaults(input.planType as PlanTypeValue).maxTokensPerMonth,
    seatCount: 0,
    createdAt: new Date().toISOString(),
  };
  const created = newTenant(tenant, actor, 'admin', `The slug '${tenant.slug}' is already taken`);
  await commitChange(created.writes, created.change, { now: tenant.createdAt });
  await countIntegrationEvents(created.integrationEvents);
  return toTenantDetail(tenant);
}

export interface TenantUpdate {
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  planType?: number | null;
  maxAgents?: number | null;
  maxKnowledgeBases?: number | null;
  maxSeats?: number | null;
  maxTokensPerMonth?: number | null;
}

const ADMIN_FIELDS = ['planType', 'maxAgents', 'maxKnowledgeBases', 'maxSeats', 'maxTokensPerMonth'] as const;
const OWNER_FIELDS = ['name', 'email'] as const;

/**
 * Null or absent fields stay as they are (an empty phone clears it). The plan and the limits are
 * the platform's to set: a tenant owner sending a different value is 403, the same value is fine.
 */
export async function updateTenant(principal: Principal, tenantId: string, input: TenantUpdate) {
  const tenant = await getTenantOr404(tenantId, true);
  const changes: Partial<TenantRecord> = {};
  for (const field of [...OWNER_FIELDS, ...ADMIN_FIELDS]) {
    const value = input[field];
    if (value !== undefined && value !== null && value !== tenant[field])
      (changes as Record<string, unknown>)[field] = value;
  }
  if (input.phone !== undefined && input.phone !== null && (input.phone || null) !== tenant.phone)
    changes.phone = input.phone || null;
  const adminChanges = ADMIN_FIELDS.filter((f) => f in changes);
  if (adminChanges.length && !isSystemAdmin(principal)) {
    throw forbidden(`Only a platform administrator can change ${adminChanges.join(', ')}`);
  }
  if (Object.keys(changes).length === 0) return toTenantDetail(tenant);

  const now = new Date().toISOString();
  const condition =
    changes.maxSeats === undefined
      ? 'attribute_exists(pk)'
      : 'attribute_exists(pk) AND (attribute_not_exists(seatCount) OR seatCount <= :maxSeats)';
  // Gone meanwhile (404), or, with a lower maxSeats, more seats taken meanwhile (409 naming them).
  const refused = notFound('Tenant');
  const failed = await committedUnless(
    commitChange(
      [
        orConflict(
          updateItem(
            identityKeys.tenant(tenant.id),
            {
              ...changes,
              updatedAt: now,
              ...(changes.name !== undefined
                ? { searchText: tenantSearchText({ name: changes.name, slug: tenant.slug }) }
                : {}),
            },
            { condition, ...(changes.maxSeats !== undefined ? { values: { ':maxSeats': changes.maxSeats } } : {}) },
          ),
          refused,
        ),
        integrationEventPut(
          'tenant.updated',
          { tenantId: tenant.id, slug: tenant.slug, fields: Object.keys(changes) },
          now,
        ),
      ],
      { entityType: 'Tenant', entityId: tenant.id, action: 'update', changes, actor: principal, tenantId: tenant.id },
      { now },
    ),
    refused,
  );
  if (failed) {
    const current = changes.maxSeats !== undefined ? await getTenant(tenant.id, true) : undefined;
    if (current) throw conflict(`maxSeats cannot be below the ${current.seatCount} seats in use`);
    throw failed;
  }
  await countIntegrationEvents(1);
  return toTenantDetail({ ...tenant, ...changes });
}

/** SystemAdmin status change; see `statusMove` for the allowed moves. */
export async function changeTenantStatus(
  principal: Principal,
  tenantId: string,
  newStatus: Exclude<TenantStatusName, 'PENDING'>,
) {
  const tenant = await getTenantOr404(tenantId, true);
  const to = TENANT_STATUS_CODES[newStatus];
  const move = statusMove(tenant.status, to);
  if (move === 'same') return toTenantDetail(tenant);
  if (move === 'final') throw conflict('A cancelled tenant cannot change its status');
  const moved = statusChange(
    tenant,
    to,
    principal,
    'admin',
    'The tenant status changed in the meantime; read it and retry',
  );
  await commitChange(moved.writes, moved.change);
  await countIntegrationEvents(moved.integrationEvents);
  return toTenantDetail({ ...tenant, status: to });
}
