/** What the identity area uses of the billing area: the one module of billing it imports. */
export { PLANS } from './plan-catalog.ts';
