/** What the agents area uses of the vault area: the one module of vault it imports. */
export { deleteTenantSecret, describeTenantSecret, putTenantSecret } from './tenant-secrets.ts';
