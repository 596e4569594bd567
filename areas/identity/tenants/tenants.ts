import type { Principal } from '#shared/auth/access-token.ts';
import { isSystemAdmin } from '#shared/auth/tenant-scope.ts';
import { auditPut, countAudit } from '#shared/data/audit.ts';
import { listNewestFirst } from '#shared/data/collection.ts';
import { transact } from '#shared/data/transact.ts';
import { conflict, forbidden, notFound } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { countIntegrationEvents, integrationEventPut } from '#areas/identity/integration-events.ts';
import {
  findTenantBySlug,
  getTenant,
  newTenantItems,
  SLUG_CLAIM_INDEX,
  statusChangeItems,
  statusMove,
  TENANT_STATUS_CODES,
  tenantCollection,
  tenantKey,
  tenantSearchText,
  toTenant,
  toTenantDetail,
  toTenantSummary,
  type PlanTypeValue,
  type TenantRecord,
  type TenantStatusName,
} from '#areas/identity/tenants.ts';
import { config } from '#shared/platform/config.ts';

/** The tenant a slug names, as the caller may see it: another tenant's slug is 404, like a missing one. */
export async function tenantForCaller(principal: Principal, slug: string, consistent = false): Promise<TenantRecord> {
  const tenant = await findTenantBySlug(slug, consistent);
  if (!tenant || (!isSystemAdmin(principal) && tenant.id !== principal.tenantId)) throw notFound('Tenant');
  return tenant;
}

export interface TenantListQuery {
  page: number;
  pageSize: number;
  search?: string;
  planType?: number;
  statusFilter?: TenantStatusName;
}

export async function listTenants(principal: Principal, q: TenantListQuery) {
  const status = q.statusFilter === undefined ? undefined : TENANT_STATUS_CODES[q.statusFilter];
  if (isSystemAdmin(principal)) {
    const { items, totalCount } = await listNewestFirst(tenantCollection(), {
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
  // A tenant user sees exactly its own tenant, through the same filters.
  const own = principal.tenantId ? await getTenant(principal.tenantId) : undefined;
  const matches =
    !!own &&
    (!q.search || tenantSearchText(own).includes(q.search.toLowerCase())) &&
    (q.planType === undefined || own.planType === q.planType) &&
    (status === undefined || own.status === status);
  const items = matches && q.page === 1 ? [toTenantSummary(own)] : [];
  return toPage(items, matches ? 1 : 0, q.page, q.pageSize);
}

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
    seatCount: 0,
    createdAt: new Date().toISOString(),
  };
  const outcome = await transact(newTenantItems(tenant, actor, 'admin'));
  if (!outcome.ok) {
    if (outcome.failedAt.includes(SLUG_CLAIM_INDEX)) throw conflict(`The slug '${tenant.slug}' is already taken`);
    throw new Error(`Tenant create failed at ${outcome.failedAt.join(',')}`);
  }
  await Promise.all([countAudit(1), countIntegrationEvents(1)]);
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
}

const ADMIN_FIELDS = ['planType', 'maxAgents', 'maxKnowledgeBases', 'maxSeats'] as const;
const OWNER_FIELDS = ['name', 'email'] as const;

/**
 * Null or absent fields stay as they are (an empty phone clears it). The plan and the limits are
 * the platform's to set: a tenant owner sending a different value is 403, the same value is fine.
 */
export async function updateTenant(principal: Principal, slug: string, input: TenantUpdate) {
  const tenant = await tenantForCaller(principal, slug, true);
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
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':now': now };
  const sets = ['updatedAt = :now'];
  for (const [field, value] of Object.entries(changes)) {
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    sets.push(`#${field} = :${field}`);
  }
  if (changes.name !== undefined) {
    sets.push('searchText = :searchText');
    values[':searchText'] = tenantSearchText({ name: changes.name, slug: tenant.slug });
  }
  let condition = 'attribute_exists(pk)';
  if (changes.maxSeats !== undefined) condition += ' AND (attribute_not_exists(seatCount) OR seatCount <= :maxSeats)';
  const outcome = await transact([
    {
      Update: {
        TableName: config.tableName,
        Key: tenantKey(tenant.id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    auditPut(
      { entityType: 'Tenant', entityId: tenant.id, action: 'update', changes, actor: principal, tenantId: tenant.id },
      now,
    ),
    integrationEventPut(
      'tenant.updated',
      { tenantId: tenant.id, slug: tenant.slug, fields: Object.keys(changes) },
      now,
    ),
  ]);
  if (!outcome.ok) {
    if (changes.maxSeats !== undefined) {
      const current = await getTenant(tenant.id, true);
      if (current) throw conflict(`maxSeats cannot be below the ${current.seatCount} seats in use`);
    }
    throw notFound('Tenant');
  }
  await Promise.all([countAudit(1), countIntegrationEvents(1)]);
  return toTenantDetail({ ...tenant, ...changes });
}

/** SystemAdmin status change; see `statusMove` for the allowed moves. */
export async function changeTenantStatus(
  principal: Principal,
  slug: string,
  newStatus: Exclude<TenantStatusName, 'PENDING'>,
) {
  const tenant = await tenantForCaller(principal, slug, true);
  const to = TENANT_STATUS_CODES[newStatus];
  const move = statusMove(tenant.status, to);
  if (move === 'same') return toTenantDetail(tenant);
  if (move === 'final') throw conflict('A cancelled tenant cannot change its status');
  const outcome = await transact(statusChangeItems(tenant, to, principal, 'admin'));
  if (!outcome.ok) throw conflict('The tenant status changed in the meantime; read it and retry');
  await Promise.all([countAudit(1), countIntegrationEvents(1)]);
  return toTenantDetail({ ...tenant, status: to });
}
