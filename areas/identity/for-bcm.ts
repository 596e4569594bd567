/** What the bcm area uses of the identity area: the one module of identity it imports. */
export { getGroup } from './group-lookup.ts';
export { getUser } from './user-accounts.ts';
