/** What the billing area uses of the identity area: what plans entitle a tenant to, and the tenant item's plan writes. */
export { PLAN_ENTITLEMENTS, PlanType } from './plans.ts';
export type { PlanFeatures } from './plans.ts';
export { planLimitsWrite, trialWrite } from './entitlements.ts';
export type { PlanLimits } from './entitlements.ts';
export { requireTenant, tenantName, tenantNames } from './tenant-lookups.ts';
