/** What the agents area uses of the identity area: the plan's entitlements and slots on the tenant item. */
export { aiLimits, planSlot, requireAgents } from './entitlements.ts';
export { featureNotInPlan } from './errors.ts';
