/** What the connector area uses of the vault area: a connection's inbound secret, read where the webhook verifies. */
export { resolveTenantSecret } from './tenant-secrets.ts';
