/** What the channels area uses of the vault area: a connection's credentials as tenant secrets. */
export {
  deleteTenantSecret,
  describeTenantSecret,
  putTenantSecret,
  resolveTenantSecret,
  tenantSecretReference,
} from './tenant-secrets.ts';
