import { aiLimits } from '#areas/identity/for-agents.ts';
import { gatewayKeys, monthOf, tokenAllowance } from '#areas/llm-gateway/for-agents.ts';
import { get } from '#shared/data/read.ts';

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, v) : 0);

/** The entitlements route: the plan's AI limits and counters (identity's) and this month's tokens (the gateway's). */
export async function entitlements(tenantId: string, now = new Date()) {
  const [limits, allowance, month] = await Promise.all([
    aiLimits(tenantId),
    tokenAllowance(tenantId),
    get<{ committedTokens?: number }>(gatewayKeys.allowance(tenantId, monthOf(now.toISOString()))),
  ]);
  return { ...limits, tokensPerMonth: { used: n(month?.committedTokens), limit: allowance } };
}
