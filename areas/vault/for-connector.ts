/** What the connector area uses of the vault area: the one module of vault it imports. */
export { resolveTenantSecret, tenantSecretReference } from './tenant-secrets.ts';
