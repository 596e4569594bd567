/** What the conversations area uses of the identity area: the one module of identity it imports. */
export { getUser } from './user-accounts.ts';
export { emailsOfUsersWith } from './users/holding.ts';
export { requireAgents } from './entitlements.ts';
export { featureNotInPlan } from './errors.ts';
