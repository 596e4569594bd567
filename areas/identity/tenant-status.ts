import { get } from '#shared/data/read.ts';
import { TENANT_REFUSALS, tenantCancelled, tenantInactive, tenantPending, tenantSuspended } from './errors.ts';
import { identityKeys, type TenantRecord } from './records.ts';
import { TENANT_STATUS_CODES, type TenantStatusName, type TenantStatusValue } from './vocabulary.ts';

/**
 * What a tenant's status allows. Only Active tenants' users may sign in or refresh; Pending and
 * Active tenants take new members; CANCELLED is final.
 */
export type TenantSignInRefusal = (typeof TENANT_REFUSALS)[number]['code'];

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

/** Tenants whose invitations may be issued and redeemed. */
export const acceptsMembers = (t: Pick<TenantRecord, 'status'>) =>
  t.status === TENANT_STATUS_CODES.PENDING || t.status === TENANT_STATUS_CODES.ACTIVE;

/** Why a tenant's users may not sign in, or null when they may. A missing tenant is inactive. */
export function tenantRefusal(tenant: { status?: unknown } | undefined): TenantSignInRefusal | null {
  switch (tenant?.status) {
    case TENANT_STATUS_CODES.ACTIVE:
      return null;
    case TENANT_STATUS_CODES.PENDING:
      return tenantPending.code;
    case TENANT_STATUS_CODES.SUSPENDED:
      return tenantSuspended.code;
    case TENANT_STATUS_CODES.CANCELLED:
      return tenantCancelled.code;
    default:
      return tenantInactive.code;
  }
}

export async function tenantSignInRefusal(tenantId: string | null): Promise<TenantSignInRefusal | null> {
  if (!tenantId) return null;
  return tenantRefusal(await get<{ status?: unknown }>(identityKeys.tenant(tenantId), { attributes: ['status'] }));
}

export const tenantRefusalError = (code: TenantSignInRefusal) => TENANT_REFUSALS.find((e) => e.code === code)!();
