import { BillingPeriod, PlanType } from '#areas/billing/plan-catalog.ts';

/**
 * The billing area's vocabulary: the spec's enums and the rules' numbers. The route file
 * (areas/billing/routes/billing.ts) builds its schemas from these; nothing here touches storage.
 */
export { BillingPeriod, PlanType };
export const SubscriptionStatus = { Inactive: 0, Active: 1, Suspended: 2, Trialing: 3, Cancelled: 4 } as const;
export const PaymentStatus = { Pending: 0, Paid: 1, Failed: 2, Refunded: 3 } as const;
export const InvoiceStatus = { Draft: 0, Issued: 1, Paid: 2, Overdue: 3, Cancelled: 4 } as const;
export const PaymentProvider = { A: 1, B: 2 } as const;
export type ProviderId = (typeof PaymentProvider)[keyof typeof PaymentProvider];

/** The smallest and largest value of an enum (schema bounds). */
export const rangeOf = (e: Readonly<Record<string, number>>) => {
  const values = Object.values(e);
  return { min: Math.min(...values), max: Math.max(...values) };
};

/** Stored payment methods per tenant (a condition of the write: docs/decisions/billing.md, "Payment methods"). */
export const METHOD_LIMIT = 10;
/** The longest trial a subscription request may ask for (a plan may allow fewer). */
export const MAX_TRIAL_DAYS = 90;
/** The most days one extend-trial request may add. */
export const MAX_TRIAL_EXTENSION_DAYS = 90;
/** Money-moving requests per source address and minute: far above any real checkout flow, even behind one NAT. */
export const MONEY_REQUESTS_PER_MINUTE = 120;
/** The string `POST /api/subscriptions` and `/api/payments/process` answer until the provider settles. */
export const PENDING = 'PENDING';
