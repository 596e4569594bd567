import { get } from '#shared/data/read.ts';
import { keys } from '#shared/data/keys.ts';
import { PLANS } from '#shared/reference/plans.ts';

/**
 * The tenant's month token allowance: `maxTokensPerMonth` on the tenant record (its plan's, set with
 * the plan's other limits, or a SystemAdmin's override), else its plan type's. Read on every call,
 * so an override counts from the next call.
 */
export async function tokenAllowance(tenantId: string): Promise<number> {
  const tenant = await get<{ maxTokensPerMonth?: number | null; planType?: number }>(
    keys.platformItem('TENANT', tenantId),
    { attributes: ['maxTokensPerMonth', 'planType'] },
  );
  if (typeof tenant?.maxTokensPerMonth === 'number') return tenant.maxTokensPerMonth;
  return planAllowance(tenant?.planType);
}

export const planAllowance = (planType: number | undefined) =>
  PLANS.find((p) => p.type === (planType ?? 1))?.features.maxTokensPerMonth ?? 0;
