import { getMany, get, getOr404 } from '#shared/data/read.ts';
import { keyId, type Item, type Key } from '#shared/data/keys.ts';
import type { TenantDirectory } from '#shared/auth/tenant-scope.ts';
import { planFeatures } from './plans.ts';
import { identityKeys } from './records.ts';

/**
 * Reads of the tenant item for the areas that only need to know of a tenant: whether it exists,
 * its name, its standing. The tenant item is identity's; these are its readers.
 */
export const tenantExists = async (tenantId: string, consistent = false) =>
  !!(await get(identityKeys.tenant(tenantId), { attributes: ['pk'], ...(consistent ? { consistent } : {}) }));

/** 404 "Tenant not found" when there is no such tenant. */
export const requireTenant = async (tenantId: string) => {
  await getOr404(identityKeys.tenant(tenantId), 'Tenant', { attributes: ['pk'] });
};

/** The tenant's name ('' when it has none), or null when there is no such tenant. */
export async function tenantName(tenantId: string, opts: { consistent?: boolean } = {}): Promise<string | null> {
  const t = await get<{ name?: string }>(identityKeys.tenant(tenantId), { attributes: ['pk', 'name'], ...opts });
  return t ? String(t.name ?? '') : null;
}

/** Tenants' names by id (one BatchGetItem per hundred). */
export async function tenantNames(ids: readonly string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (!ids.length) return names;
  const items = await getMany<{ id?: string; name?: string }>(ids.map((id) => identityKeys.tenant(id)));
  for (const t of items.values()) names.set(String(t.id), String(t.name ?? ''));
  return names;
}

/** What the LLM gateway decides a call on: the month's allowance as set, the plan, the state. */
export type TenantStandingFields = { maxTokensPerMonth?: number | null; planType?: number; status?: number };
const STANDING = ['maxTokensPerMonth', 'planType', 'status'];

/** Strongly consistent: a suspension or a lowered allowance counts from the very next call. */
export const tenantStandingFields = async (tenantId: string) =>
  await get<TenantStandingFields>(identityKeys.tenant(tenantId), { attributes: STANDING, consistent: true });

/**
 * The tenant's standing and the caller's own items in one strongly consistent BatchGetItem (the
 * gateway reads a key beside its tenant on every call).
 */
export async function tenantStandingWith<T = Item>(tenantId: string, others: readonly Key[]) {
  const tenant = identityKeys.tenant(tenantId);
  const items = await getMany<Record<string, unknown>>([...others, tenant], { consistent: true });
  return {
    tenant: items.get(keyId(tenant)) as TenantStandingFields | undefined,
    items: new Map(others.map((k) => [keyId(k), items.get(keyId(k)) as T | undefined])),
  };
}

/** The month's token allowance a tenant item gives: as set (the plan's, or a SystemAdmin's), else its plan type's. */
export const monthTokenAllowance = (t: TenantStandingFields | undefined) =>
  typeof t?.maxTokensPerMonth === 'number' ? t.maxTokensPerMonth : (planFeatures(t?.planType)?.maxTokensPerMonth ?? 0);

/** The runtime's view of the tenants (`apiHandler`'s `tenants`): whether one exists, and which holds a slug. */
export const tenantDirectory: TenantDirectory = {
  exists: (tenantId) => tenantExists(tenantId),
  bySlug: async (slug) => (await get<{ tenantId?: string }>(identityKeys.slug(slug)))?.tenantId ?? null,
};
