/** What the channels area uses of the identity area: the AI runtime's plan switch. */
export { requireAgents } from './entitlements.ts';
export { featureNotInPlan } from './errors.ts';
