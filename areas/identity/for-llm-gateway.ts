/** What the llm-gateway area uses of the identity area: the one module of identity it imports. */
export { TENANT_STATUS_CODES } from './vocabulary.ts';
export { monthTokenAllowance, tenantStandingFields, tenantStandingWith } from './tenant-lookups.ts';
export type { TenantStandingFields } from './tenant-lookups.ts';
