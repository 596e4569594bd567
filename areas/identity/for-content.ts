/** What the content area uses of the identity area: whether a tenant exists. */
export { tenantStillExists } from './entitlements.ts';
export { tenantExists } from './tenant-lookups.ts';
