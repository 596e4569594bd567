import { get } from '#shared/data/read.ts';
import { gatewayKeys, monthOf } from './records.ts';
import {
  monthTokenAllowance,
  TENANT_STATUS_CODES,
  tenantStandingFields,
  type TenantStandingFields,
} from '#areas/identity/for-llm-gateway.ts';
import { tenantCancelled, tenantSuspended } from './errors.ts';
import { usedWithOpenLeases } from './reservations.ts';

/**
 * What a tenant may spend on models: its month token allowance (`maxTokensPerMonth` on the tenant
 * record: its plan's, set with the plan's other limits, or a SystemAdmin's override; else its plan
 * type's) and whether it may call at all (a suspended or cancelled tenant may not: its keys and
 * agents stop with its users' sign-in). Read on every call, so a change counts from the next call.
 */
export interface TenantStanding {
  allowance: number;
  refusal: (typeof REFUSALS)[number]['code'] | null;
}

// A standing is compared as JSON (admission's basis): it names its refusal by code.
const REFUSALS = [tenantSuspended, tenantCancelled] as const;

export const tenantStanding = async (tenantId: string): Promise<TenantStanding> =>
  standingOf(await tenantStandingFields(tenantId));

/** The standing a tenant item gives (read alone, or with the caller's key in one batch). */
export function standingOf(tenant: TenantStandingFields | undefined): TenantStanding {
  const allowance = monthTokenAllowance(tenant);
  const refusal =
    tenant?.status === TENANT_STATUS_CODES.SUSPENDED
      ? tenantSuspended.code
      : tenant?.status === TENANT_STATUS_CODES.CANCELLED
        ? tenantCancelled.code
        : null;
  return { allowance, refusal };
}

export const tokenAllowance = async (tenantId: string) => (await tenantStanding(tenantId)).allowance;

export const tenantRefused = (refusal: NonNullable<TenantStanding['refusal']>) =>
  REFUSALS.find((e) => e.code === refusal)!();

/**
 * The tokens the tenant's calls have used this month (the entitlements route shows them beside the
 * allowance): settled, and what the month's open leases have used so far.
 */
export async function monthTokensUsed(tenantId: string, now = new Date()): Promise<number> {
  const month = await get<Record<string, unknown>>(gatewayKeys.allowance(tenantId, monthOf(now.toISOString())));
  const n = (await usedWithOpenLeases(month, 'Tokens')).used;
  return Number.isFinite(n) ? Math.max(0, n) : 0;
}
