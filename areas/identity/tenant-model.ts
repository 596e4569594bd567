import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter } from '#shared/data/collection.ts';
import { orConflict, putNew, updateItem, type Change, type Write } from '#shared/data/commit.ts';
import { get, getOr404 } from '#shared/data/read.ts';
import type { ApiError } from '#shared/http/errors.ts';
import { integrationEventPut } from '#shared/data/integration-events.ts';
import { PLAN_ENTITLEMENTS } from './plans.ts';
import { identityKeys, tenantItem, toTenant, type TenantRecord } from './records.ts';
import { systemRoleItems } from './system-roles.ts';
import { statusNameOf } from './tenant-status.ts';
import { SLUG_PATTERN, type PlanTypeValue, type TenantStatusValue } from './vocabulary.ts';

export type Actor = Pick<Principal, 'userId' | 'email'> | null;

/** Someone acting without an account yet (onboarding, registration): the audit shows the e-mail. */
export const actingAs = (userId: string | null, email: string): Actor => ({ userId: userId as string, email });

/** Default seats per plan (plans carry agent and knowledge-base limits, not seats). */
const DEFAULT_SEATS: Record<PlanTypeValue, number> = { 1: 5, 2: 25, 3: 100 };

/** Limits a tenant starts with on a plan, and the plan's trial length. */
export function planDefaults(planType: PlanTypeValue) {
  const plan = PLAN_ENTITLEMENTS[planType];
  return {
    maxAgents: plan?.features.maxAgents ?? 0,
    maxKnowledgeBases: plan?.features.maxKnowledgeBases ?? 0,
    maxSeats: DEFAULT_SEATS[planType],
    maxTokensPerMonth: plan?.features.maxTokensPerMonth ?? 0,
    trialDays: plan?.trialDays ?? 0,
  };
}

/** Lower-case ASCII slug of a display name, 3-50 characters (room left for a uniqueness suffix). */
export function slugify(name: string): string {
  let base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/, '');
  if (base.length < 3) base = base ? `${base}-tenant` : 'tenant';
  return base;
}

/** Candidates tried in order until one is free: `acme`, `acme-2` ... `acme-9`, then random suffixes. */
export function slugCandidates(base: string): string[] {
  const numbered = Array.from({ length: 8 }, (_, i) => `${base}-${i + 2}`);
  const random = Array.from({ length: 4 }, () => `${base}-${crypto.randomUUID().slice(0, 6)}`);
  return [base, ...numbered, ...random].filter((s) => SLUG_PATTERN.test(s));
}

/** The tenant item, strongly consistent when the caller is about to decide a write on it. */
export async function getTenant(tenantId: string, consistent = false): Promise<TenantRecord | undefined> {
  const item = await get(identityKeys.tenant(tenantId), { consistent });
  return item ? toTenant(item) : undefined;
}

export const getTenantOr404 = async (tenantId: string, consistent = false) =>
  toTenant(await getOr404(identityKeys.tenant(tenantId), 'Tenant', { consistent }));

/**
 * Everything a new tenant is written with, in one transaction: the slug claim (answering
 * `slugTaken` when another tenant holds it), the tenant item, the tenant counter, the system roles
 * TenantOwner and TenantMember and the `tenant.created` integration event; `change` is its audit entry.
 */
export function newTenant(
  tenant: TenantRecord,
  actor: Actor,
  source: 'onboarding' | 'admin',
  slugTaken: string | ApiError,
): { writes: Write[]; change: Change; integrationEvents: number } {
  const writes: Write[] = [
    orConflict(putNew({ ...identityKeys.slug(tenant.slug), tenantId: tenant.id }), slugTaken),
    putNew(tenantItem(tenant)),
    bumpCounter(identityKeys.tenants(), 1),
    ...systemRoleItems(tenant.id, tenant.createdAt),
    integrationEventPut(
      'tenant.created',
      { tenantId: tenant.id, slug: tenant.slug, planType: tenant.planType, status: tenant.status, source },
      tenant.createdAt,
    ),
  ];
  const change: Change = {
    entityType: 'Tenant',
    entityId: tenant.id,
    action: 'create',
    changes: {
      slug: tenant.slug,
      name: tenant.name,
      email: tenant.email,
      phone: tenant.phone,
      planType: tenant.planType,
      status: tenant.status,
      maxAgents: tenant.maxAgents,
      maxKnowledgeBases: tenant.maxKnowledgeBases,
      maxSeats: tenant.maxSeats,
      maxTokensPerMonth: tenant.maxTokensPerMonth,
    },
    actor,
    tenantId: tenant.id,
  };
  return { writes, change, integrationEvents: 1 };
}

/**
 * A status change: conditional on the status that was read (answering `changed` when it moved
 * meanwhile), with its `tenant.status-changed` event; `change` is its audit entry.
 */
export function statusChange(
  tenant: TenantRecord,
  to: TenantStatusValue,
  actor: Actor,
  reason: string,
  changed: string | ApiError,
  now = new Date().toISOString(),
): { writes: Write[]; change: Change; integrationEvents: number } {
  const writes: Write[] = [
    orConflict(
      updateItem(
        identityKeys.tenant(tenant.id),
        { status: to, statusChangedAt: now, updatedAt: now },
        {
          condition: 'attribute_exists(pk) AND #status = :from',
          names: { '#status': 'status' },
          values: { ':from': tenant.status },
        },
      ),
      changed,
    ),
    integrationEventPut(
      'tenant.status-changed',
      { tenantId: tenant.id, slug: tenant.slug, from: statusNameOf(tenant.status), to: statusNameOf(to), reason },
      now,
    ),
  ];
  const change: Change = {
    entityType: 'Tenant',
    entityId: tenant.id,
    action: 'status-change',
    changes: { status: to, statusName: statusNameOf(to), reason },
    actor,
    tenantId: tenant.id,
  };
  return { writes, change, integrationEvents: 1 };
}
