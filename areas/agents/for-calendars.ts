/** What the calendars area uses of the agents area: the AI runtime's plan switch. */
export { featureNotInPlan } from './errors.ts';
export { requireAgents } from './entitlements.ts';
