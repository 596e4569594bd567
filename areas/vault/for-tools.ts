/** What the tools area uses of the vault area: the one module of vault it imports. */
export { secretOutsideNamespace } from './errors.ts';
export { MAX_VALUE_BYTES } from './rules.ts';
export {
  deleteTenantSecret,
  describeTenantSecret,
  ownReference,
  putTenantSecret,
  resolveTenantSecret,
  tenantSecretExists,
} from './tenant-secrets.ts';
