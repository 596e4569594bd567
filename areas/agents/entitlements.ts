import { aiLimits } from '#areas/identity/for-agents.ts';
import { monthTokensUsed, tokenAllowance } from '#areas/llm-gateway/for-agents.ts';

/** The entitlements route: the plan's AI limits and counters (identity's) and this month's tokens (the gateway's). */
export async function entitlements(tenantId: string, now = new Date()) {
  const [limits, allowance, used] = await Promise.all([
    aiLimits(tenantId),
    tokenAllowance(tenantId),
    monthTokensUsed(tenantId, now),
  ]);
  return { ...limits, tokensPerMonth: { used, limit: allowance } };
}
