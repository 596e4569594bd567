/** What the knowledge area uses of the identity area: the plan's knowledge-base slots on the tenant item. */
export { planSlot } from './entitlements.ts';
export { tenantLimits } from './entitlements.ts';
