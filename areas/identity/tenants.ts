import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '#shared/auth/access-token.ts';
import { auditPut } from '#shared/data/audit.ts';
import { bumpCounter, claimUnique, getItem, putNew } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import type { TransactItem } from '#shared/data/transact.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { PLANS } from '#shared/reference/plans.ts';
import { SLUG_PATTERN, TENANT_STATUS_CODES, type TenantStatusName } from '#shared/routes/tenants.ts';
import { integrationEventPut } from './integration-events.ts';
import { systemRoleItems } from './roles.ts';

export { SLUG_PATTERN, TENANT_STATUS_CODES, type TenantStatusName };

export type PlanTypeValue = 1 | 2 | 3;
export type TenantStatusValue = (typeof TENANT_STATUS_CODES)[TenantStatusName];

export interface TenantRecord {
  id: string;
  slug: string;
  name: string;
  email: string;
  phone: string | null;
  planType: PlanTypeValue;
  status: TenantStatusValue;
  trialExpiresAt: string | null;
  maxAgents: number;
  maxKnowledgeBases: number;
  maxSeats: number;
  /** Users in the tenant (active or not); redeeming an invitation adds one, deleting a user frees one. */
  seatCount: number;
  createdAt: string;
}

export type Actor = Pick<Principal, 'userId' | 'email'> | null;

/** Someone acting without an account yet (onboarding, registration): the audit shows the e-mail. */
export const actingAs = (userId: string | null, email: string): Actor => ({ userId: userId as string, email });

/** Default seats per plan (plans carry agent and knowledge-base limits, not seats). */
const DEFAULT_SEATS: Record<PlanTypeValue, number> = { 1: 5, 2: 25, 3: 100 };

/** Limits a tenant starts with on a plan, and the plan's trial length. */
export function planDefaults(planType: PlanTypeValue) {
  const plan = PLANS.find((p) => p.type === planType);
  return {
    maxAgents: plan?.features.maxAgents ?? 0,
    maxKnowledgeBases: plan?.features.maxKnowledgeBases ?? 0,
    maxSeats: DEFAULT_SEATS[planType],
    trialDays: plan?.trialDays ?? 0,
  };
}

export const statusNameOf = (status: number): TenantStatusName =>
  (Object.entries(TENANT_STATUS_CODES).find(([, v]) => v === status)?.[0] as TenantStatusName | undefined) ?? 'PENDING';

/**
 * Moves of `PUT /api/tenants/{slug}/status`: CANCELLED is final; Pending, Active and Suspended may
 * move to any of ACTIVE, SUSPENDED, CANCELLED. Asking for the current status is a no-op.
 */
export function statusMove(from: TenantStatusValue, to: TenantStatusValue): 'ok' | 'same' | 'final' {
  if (from === to) return 'same';
  if (from === TENANT_STATUS_CODES.CANCELLED) return 'final';
  return 'ok';
}

/** A feature is on when its limit is above zero; the plan sets the limits' defaults. */
export const featuresOf = (t: Pick<TenantRecord, 'maxAgents' | 'maxKnowledgeBases'>) => ({
  aiAgents: t.maxAgents > 0,
  knowledgeBase: t.maxKnowledgeBases > 0,
});

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

export const tenantKey = (tenantId: string) => keys.platformItem('TENANT', tenantId);
export const tenantCollection = () => keys.platformCollection('TENANT');
export const slugKey = (slug: string) => keys.unique('SLUG', slug);

const num = (v: unknown, fallback = 0) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

export function toTenant(item: Record<string, unknown>): TenantRecord {
  return {
    id: item.id as string,
    slug: (item.slug as string) ?? '',
    name: (item.name as string) ?? '',
    email: (item.email as string) ?? '',
    phone: (item.phone as string | null) ?? null,
    planType: num(item.planType, 1) as PlanTypeValue,
    status: num(item.status, 0) as TenantStatusValue,
    trialExpiresAt: (item.trialExpiresAt as string | null) ?? null,
    maxAgents: num(item.maxAgents),
    maxKnowledgeBases: num(item.maxKnowledgeBases),
    maxSeats: num(item.maxSeats),
    seatCount: Math.max(0, num(item.seatCount)),
    createdAt: (item.createdAt as string) ?? '',
  };
}

export const toTenantSummary = (t: TenantRecord) => ({
  id: t.id,
  slug: t.slug,
  name: t.name,
  planType: t.planType,
  status: t.status,
  trialExpiresAt: t.trialExpiresAt,
  maxAgents: t.maxAgents,
  maxKnowledgeBases: t.maxKnowledgeBases,
  isActive: t.status === TENANT_STATUS_CODES.ACTIVE,
  createdAt: t.createdAt,
});

export const toTenantDetail = (t: TenantRecord) => ({
  id: t.id,
  slug: t.slug,
  name: t.name,
  email: t.email,
  phone: t.phone,
  planType: t.planType,
  status: t.status,
  trialExpiresAt: t.trialExpiresAt,
  maxAgents: t.maxAgents,
  maxKnowledgeBases: t.maxKnowledgeBases,
  maxSeats: t.maxSeats,
  seatCount: t.seatCount,
  features: featuresOf(t),
  isActive: t.status === TENANT_STATUS_CODES.ACTIVE,
  createdAt: t.createdAt,
});

export const tenantSearchText = (t: Pick<TenantRecord, 'name' | 'slug'>) => `${t.name} ${t.slug}`.toLowerCase();

/** The tenant item, strongly consistent when the caller is about to decide a write on it. */
export async function getTenant(tenantId: string, consistent = false): Promise<TenantRecord | undefined> {
  const out = await ddb().send(
    new GetCommand({ TableName: config.tableName, Key: tenantKey(tenantId), ConsistentRead: consistent }),
  );
  return out.Item ? toTenant(out.Item) : undefined;
}

export async function findTenantBySlug(slug: string, consistent = false): Promise<TenantRecord | undefined> {
  const claim = await getItem<{ tenantId?: string }>(slugKey(slug));
  return claim?.tenantId ? getTenant(claim.tenantId, consistent) : undefined;
}

/**
 * Everything a new tenant is written with, in one transaction: the slug claim (index 0, so a
 * failure there means the slug is taken), the tenant item, the tenant counter, the system roles
 * TenantOwner and TenantMember, the audit entry and the `tenant.created` integration event.
 */
export function newTenantItems(tenant: TenantRecord, actor: Actor, source: 'onboarding' | 'admin'): TransactItem[] {
  const collection = tenantCollection();
  return [
    claimUnique(slugKey(tenant.slug), { tenantId: tenant.id }),
    putNew({
      ...tenantKey(tenant.id),
      ...keys.newestFirst(collection, tenant.createdAt, tenant.id),
      ...tenant,
      searchText: tenantSearchText(tenant),
    }),
    bumpCounter(collection, 1),
    ...systemRoleItems(tenant.id, tenant.createdAt),
    auditPut(
      {
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
        },
        actor,
        tenantId: tenant.id,
      },
      tenant.createdAt,
    ),
    integrationEventPut(
      'tenant.created',
      { tenantId: tenant.id, slug: tenant.slug, planType: tenant.planType, status: tenant.status, source },
      tenant.createdAt,
    ),
  ];
}

/** Index of the slug claim in `newTenantItems`. */
export const SLUG_CLAIM_INDEX = 0;

/** A status change as transaction items: conditional on the status read, plus audit and event. */
export function statusChangeItems(
  tenant: TenantRecord,
  to: TenantStatusValue,
  actor: Actor,
  reason: string,
  now = new Date().toISOString(),
): TransactItem[] {
  return [
    {
      Update: {
        TableName: config.tableName,
        Key: tenantKey(tenant.id),
        UpdateExpression: 'SET #status = :to, statusChangedAt = :now, updatedAt = :now',
        ConditionExpression: 'attribute_exists(pk) AND #status = :from',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':to': to, ':from': tenant.status, ':now': now },
      },
    },
    auditPut(
      {
        entityType: 'Tenant',
        entityId: tenant.id,
        action: 'status-change',
        changes: { status: to, statusName: statusNameOf(to), reason },
        actor,
        tenantId: tenant.id,
      },
      now,
    ),
    integrationEventPut(
      'tenant.status-changed',
      { tenantId: tenant.id, slug: tenant.slug, from: statusNameOf(tenant.status), to: statusNameOf(to), reason },
      now,
    ),
  ];
}
