import { keys } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { notFound, validationError } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import { PLANS, type PlanRecord } from '#areas/billing/plan-catalog.ts';
import { toMajor } from './money.ts';

/** Plans change only by a deploy-time seed or an operator: a warm function serves them from memory for this long. */
export const PLAN_CACHE_SECONDS = 300;
let cached: { at: number; plans: PlanRecord[] } | undefined;

/** The seeded plans (one Query of the plan collection), from the in-function cache when fresh. */
async function allPlans(now = Date.now()): Promise<PlanRecord[]> {
  if (cached && now - cached.at < PLAN_CACHE_SECONDS * 1000) return cached.plans;
  const items = await queryItems<PlanRecord>({
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.platformCollection('PLAN') },
  });
  // A stage whose table has no plan records yet (nothing seeded it) sells the plans in code.
  const plans = (items.length ? items : [...PLANS]).sort(
    (a, b) => a.type - b.type || a.billingPeriod - b.billingPeriod,
  );
  cached = { at: now, plans };
  return plans;
}

const toPlan = (p: PlanRecord) => ({
  id: p.id,
  name: p.name,
  code: p.code,
  type: p.type,
  price: toMajor(p.priceMinor, p.currency),
  currency: p.currency,
  billingPeriod: p.billingPeriod,
  features: p.features,
  isTrialEligible: p.isTrialEligible,
  trialDays: p.trialDays,
  isActive: p.isActive,
  createdAt: p.createdAt,
});

export async function activePlans() {
  return (await allPlans()).filter((p) => p.isActive).map(toPlan);
}

/** An active plan sold for the given period; anything else is a 400 on the field that is wrong. */
export async function planFor(planId: string, billingPeriod: number): Promise<PlanRecord> {
  const plan = (await allPlans()).find((p) => p.id === planId && p.isActive);
  if (!plan) throw notFound('Plan');
  if (plan.billingPeriod !== billingPeriod)
    throw validationError([
      {
        path: 'body.billingPeriod',
        message: `Plan ${plan.code} is billed ${plan.billingPeriod === 1 ? 'monthly (1)' : 'yearly (2)'}`,
      },
    ]);
  return plan;
}
