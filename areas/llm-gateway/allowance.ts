import { TENANT_STATUS_CODES } from '#areas/identity/for-llm-gateway.ts';
import { keys } from '#shared/data/keys.ts';
import { get } from '#shared/data/read.ts';
import { PLANS } from '#areas/billing/for-llm-gateway.ts';
import { tenantCancelled, tenantSuspended } from './errors.ts';

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

type TenantFields = { maxTokensPerMonth?: number | null; planType?: number; status?: number };

export const tenantKey = (tenantId: string) => keys.platformItem('TENANT', tenantId);

export async function tenantStanding(tenantId: string): Promise<TenantStanding> {
  return standingOf(
    await get<TenantFields>(tenantKey(tenantId), { attributes: ['maxTokensPerMonth', 'planType', 'status'] }),
  );
}

/** The standing a tenant item gives (read alone, or with the caller's key in one batch). */
export function standingOf(tenant: TenantFields | undefined): TenantStanding {
  const allowance =
    typeof tenant?.maxTokensPerMonth === 'number' ? tenant.maxTokensPerMonth : planAllowance(tenant?.planType);
  const refusal =
    tenant?.status === TENANT_STATUS_CODES.SUSPENDED
      ? tenantSuspended.code
      : tenant?.status === TENANT_STATUS_CODES.CANCELLED
        ? tenantCancelled.code
        : null;
  return { allowance, refusal };
}

export const tokenAllowance = async (tenantId: string) => (await tenantStanding(tenantId)).allowance;

const planAllowance = (planType: number | undefined) =>
  PLANS.find((p) => p.type === (planType ?? 1))?.features.maxTokensPerMonth ?? 0;

export const tenantRefused = (refusal: NonNullable<TenantStanding['refusal']>) =>
  REFUSALS.find((e) => e.code === refusal)!();
