/** What the analytics area uses of the identity area: whether a tenant exists. */
export { tenantExists } from './tenant-lookups.ts';
