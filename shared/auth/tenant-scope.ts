import { forbidden, notFound, validationError } from '#shared/http/errors.ts';
import { keys, type TenantCollection } from '#shared/data/keys.ts';
import { keysById } from '#shared/data/query.ts';
import type { Principal } from './access-token.ts';

/**
 * What the runtime asks of the tenants (the identity area's records), through the resolvers the
 * function passes to `apiHandler`: whether a tenant exists, and which tenant holds a slug.
 */
export interface TenantDirectory {
  exists(tenantId: string): Promise<boolean>;
  bySlug(slug: string): Promise<string | null>;
}

export const isSystemAdmin = (p: Principal | null) => !!p?.roles.includes('SystemAdmin');

/**
 * The tenant a request acts on. A tenant user always acts on its own tenant; naming another is
 * 403. A SystemAdmin names the tenant (checked to exist) and must name one where it is needed.
 */
export async function scopeTenant(
  tenants: TenantDirectory,
  principal: Principal,
  requested: string | null | undefined,
  field = 'query.tenantId',
): Promise<string> {
  const wanted = requested?.toLowerCase();
  if (!isSystemAdmin(principal)) {
    if (!principal.tenantId) throw forbidden('This route needs a tenant account');
    if (wanted && wanted !== principal.tenantId) throw forbidden('Access to another tenant is not allowed');
    return principal.tenantId;
  }
  const tenantId = wanted ?? principal.tenantId;
  if (!tenantId) throw validationError([{ path: field, message: 'Required for platform administrators' }]);
  if (!(await tenants.exists(tenantId))) throw notFound('Tenant');
  return tenantId;
}

/** The tenant a `{slug}` path names: 404 when no tenant has it, or when a tenant user names another's. */
export async function tenantOfSlug(tenants: TenantDirectory, principal: Principal, slug: string): Promise<string> {
  const tenantId = await tenants.bySlug(slug.toLowerCase());
  if (!tenantId || (!isSystemAdmin(principal) && tenantId !== principal.tenantId)) throw notFound('Tenant');
  return tenantId;
}

/** A tenant record addressed by id on a by-id route. */
export interface RecordRef {
  collection: TenantCollection;
  id: string;
  /** The name in the 404 message. */
  label: string;
}

/**
 * The tenant a by-id route acts on. Tenant users and a SystemAdmin naming `tenantId` are scoped
 * exactly as `scopeTenant`; a SystemAdmin naming only the id gets the tenant that holds it (ids
 * are UUIDs), or 404. The by-id index is eventually consistent: a record created a moment ago
 * may need the `tenantId` narrowing for that moment.
 */
export async function scopeRecord(
  tenants: TenantDirectory,
  principal: Principal,
  requested: string | null | undefined,
  record: RecordRef,
  field = 'query.tenantId',
): Promise<string> {
  if (!isSystemAdmin(principal) || requested) return scopeTenant(tenants, principal, requested, field);
  for (const item of await keysById(record.id)) {
    const tenantId = item.sk === record.id ? keys.tenantOfItem(String(item.pk), record.collection) : null;
    if (tenantId) return tenantId;
  }
  throw notFound(record.label);
}
