import { TENANT_STATUS_CODES } from '#areas/identity/vocabulary.ts';
import { keys } from '#shared/data/keys.ts';
import { get } from '#shared/data/read.ts';
import { ApiError } from '#shared/http/errors.ts';
import { PLANS } from '#shared/reference/plans.ts';

/**
 * What a tenant may spend on models: its month token allowance (`maxTokensPerMonth` on the tenant
 * record: its plan's, set with the plan's other limits, or a SystemAdmin's override; else its plan
 * type's) and whether it may call at all (a suspended or cancelled tenant may not: its keys and
 * agents stop with its users' sign-in). Read on every call, so a change counts from the next call.
 */
export interface TenantStanding {
  allowance: number;
  refusal: 'TENANT_SUSPENDED' | 'TENANT_CANCELLED' | null;
}

export async function tenantStanding(tenantId: string): Promise<TenantStanding> {
  const tenant = await get<{ maxTokensPerMonth?: number | null; planType?: number; status?: number }>(
    keys.platformItem('TENANT', tenantId),
    { attributes: ['maxTokensPerMonth', 'planType', 'status'] },
  );
  const allowance =
    typeof tenant?.maxTokensPerMonth === 'number' ? tenant.maxTokensPerMonth : planAllowance(tenant?.planType);
  const refusal =
    tenant?.status === TENANT_STATUS_CODES.SUSPENDED
      ? 'TENANT_SUSPENDED'
      : tenant?.status === TENANT_STATUS_CODES.CANCELLED
        ? 'TENANT_CANCELLED'
        : null;
  return { allowance, refusal };
}

export const tokenAllowance = async (tenantId: string) => (await tenantStanding(tenantId)).allowance;

const planAllowance = (planType: number | undefined) =>
  PLANS.find((p) => p.type === (planType ?? 1))?.features.maxTokensPerMonth ?? 0;

export const tenantRefused = (refusal: NonNullable<TenantStanding['refusal']>) =>
  new ApiError(
    403,
    refusal,
    refusal === 'TENANT_SUSPENDED' ? 'This organisation is suspended' : 'This organisation has been cancelled',
  );
