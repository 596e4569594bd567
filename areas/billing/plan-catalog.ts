/**
 * The subscription plans the platform sells. Stored as platform items (`keys.platformItem('PLAN',
 * id)`) by the local seed and the deploy-time seed; ids are fixed so re-seeding never duplicates
 * a plan and tests can name them. Money is integer minor units (`priceMinor`), shown as a decimal.
 * What each plan's type entitles a tenant to (features, trial) is the identity area's.
 */
import { PLAN_ENTITLEMENTS, PlanType, type PlanFeatures } from '#areas/identity/for-billing.ts';

export { PlanType };
export const BillingPeriod = { Monthly: 1, Yearly: 2 } as const;

export interface PlanRecord {
  id: string;
  name: string;
  code: string;
  type: (typeof PlanType)[keyof typeof PlanType];
  priceMinor: number;
  currency: string;
  billingPeriod: (typeof BillingPeriod)[keyof typeof BillingPeriod];
  features: PlanFeatures;
  isTrialEligible: boolean;
  trialDays: number;
  isActive: boolean;
  createdAt: string;
}

const SEEDED_AT = '2026-01-01T00:00:00.000Z';

const MONTHLY: readonly PlanRecord[] = [
  {
    id: '3a1f9212-bd39-4e40-8409-1c3ea9d82769',
    name: 'Starter',
    code: 'starter',
    type: PlanType.Starter,
    priceMinor: 2900,
    currency: 'USD',
    billingPeriod: BillingPeriod.Monthly,
    ...PLAN_ENTITLEMENTS[PlanType.Starter],
    isActive: true,
    createdAt: SEEDED_AT,
  },
  {
    id: 'da874e5a-d6cb-4f44-b01d-eee120433c2b',
    name: 'Professional',
    code: 'professional',
    type: PlanType.Professional,
    priceMinor: 9900,
    currency: 'USD',
    billingPeriod: BillingPeriod.Monthly,
    ...PLAN_ENTITLEMENTS[PlanType.Professional],
    isActive: true,
    createdAt: SEEDED_AT,
  },
  {
    id: '135b1094-4d5b-4342-9a5a-2dc0d0063498',
    name: 'Enterprise',
    code: 'enterprise',
    type: PlanType.Enterprise,
    priceMinor: 29900,
    currency: 'USD',
    billingPeriod: BillingPeriod.Monthly,
    ...PLAN_ENTITLEMENTS[PlanType.Enterprise],
    isActive: true,
    createdAt: SEEDED_AT,
  },
];

/** Yearly plans: the monthly plan's features and trial at ten months' price. */
const YEARLY_IDS: Record<number, string> = {
  1: '7c0f8d0e-5a7b-4f0e-9d3e-2b1a6c4d8e01',
  2: '1e6b2f44-93c2-4b7a-a5d1-6f0c3e9b7a02',
  3: 'b9d4e7a1-2c58-4e36-8f1b-0a7d5c3e9f03',
};

export const PLANS: readonly PlanRecord[] = [
  ...MONTHLY,
  ...MONTHLY.map((p) => ({
    ...p,
    id: YEARLY_IDS[p.type]!,
    name: `${p.name} (yearly)`,
    code: `${p.code}-yearly`,
    priceMinor: p.priceMinor * 10,
    billingPeriod: BillingPeriod.Yearly,
  })),
];
