import { planLimitsWrite, type PlanLimits } from '#areas/identity/for-billing.ts';
import type { TransactItem } from '#shared/data/commit.ts';
import { PLANS } from '#areas/billing/plan-catalog.ts';
import type { SubscriptionRecord } from './records.ts';
import { PlanType } from './vocabulary.ts';

/**
 * What a tenant may use follows what it pays for (docs/decisions/billing.md, "What the tenant pays for").
 * A subscription that is Active or Trialing gives the tenant its plan's limits; when it stops being
 * paid for (a failed renewal suspends it, the provider cancels it, or its period charge is
 * refunded) the tenant falls back to the baseline: the Starter limits every tenant starts with.
 * Each of those moves writes the tenant's limits in the same transaction as the subscription's status.
 */
type Limits = PlanLimits;

const limitsOfType = (planType: number): Limits => {
  const features = PLANS.find((p) => p.type === planType)?.features;
  return {
    planType,
    maxAgents: features?.maxAgents ?? 0,
    maxKnowledgeBases: features?.maxKnowledgeBases ?? 0,
    maxTokensPerMonth: features?.maxTokensPerMonth ?? 0,
  };
};

/** The limits of a tenant without a paid subscription. */
const BASELINE: Limits = limitsOfType(PlanType.Starter);

/** The limits a subscription's plan gives (the plan's features; its type when the plan is unknown). */
function limitsOf(sub: Pick<SubscriptionRecord, 'planId' | 'planType'>): Limits {
  const features = PLANS.find((p) => p.id === sub.planId)?.features;
  return features
    ? {
        planType: sub.planType,
        maxAgents: features.maxAgents,
        maxKnowledgeBases: features.maxKnowledgeBases,
        maxTokensPerMonth: features.maxTokensPerMonth,
      }
    : limitsOfType(sub.planType);
}

/** The tenant on its subscription's plan (activation, a trial, a renewal: also back from Suspended). */
export const limitsUp = (
  tenantId: string,
  sub: SubscriptionRecord,
  trialExpiresAt: string | null,
  now: string,
): TransactItem => planLimitsWrite(tenantId, limitsOf(sub), trialExpiresAt, now);

/** The tenant back on the baseline (suspension, cancellation, a refunded period charge). */
export const limitsDown = (tenantId: string, now: string): TransactItem =>
  planLimitsWrite(tenantId, BASELINE, null, now);
