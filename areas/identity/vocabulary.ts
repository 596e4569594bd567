/**
 * The identity area's domain vocabulary: values the route table's schemas check and the area's
 * logic decides on. No imports, so a route file can take them without loading the area.
 */

/** Lowercase letters, digits and hyphens, 3-63 characters, no hyphen at either end. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])$/;
export const SLUG_MAX = 63;

/** The numeric `status` of a tenant, by the name the API uses in `statusFilter` and `newStatus`. */
export const TENANT_STATUS_CODES = { PENDING: 0, ACTIVE: 1, SUSPENDED: 2, CANCELLED: 3 } as const;
export type TenantStatusName = keyof typeof TENANT_STATUS_CODES;
export type TenantStatusValue = (typeof TENANT_STATUS_CODES)[TenantStatusName];
export const TENANT_STATUS_NAMES = Object.keys(TENANT_STATUS_CODES) as TenantStatusName[];
/** The statuses an administrator may set (`PUT /api/tenants/{slug}/status`); Pending is only where tenants start. */
export const SETTABLE_TENANT_STATUSES = [
  'ACTIVE',
  'SUSPENDED',
  'CANCELLED',
] as const satisfies readonly TenantStatusName[];

/** 1 Starter, 2 Professional, 3 Enterprise. */
export const PLAN_TYPES = [1, 2, 3] as const;
export type PlanTypeValue = (typeof PLAN_TYPES)[number];

/** Upper bound of a tenant's agent, knowledge-base and seat limits. */
export const TENANT_LIMIT_MAX = 1_000_000;

/** Role names appear in tokens and user filters: letters, digits, space, `.`, `_`, `-`. */
export const ROLE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 ._-]*$/;
export const ROLE_NAME_MAX = 64;

/** Roles given to one user or invitation at most. */
export const MAX_ROLES_PER_USER = 20;

/** An e-mailed verification code: six digits. */
export const VERIFICATION_CODE_PATTERN = /^\d{6}$/;

/** The system roles every tenant has (SystemAdmin is platform-level and never a tenant role). */
export const TENANT_SYSTEM_ROLES = ['TenantOwner', 'TenantMember'] as const;
export type TenantSystemRole = (typeof TENANT_SYSTEM_ROLES)[number];

/** The largest month token allowance a SystemAdmin may set (the LLM gateway's `maxTokensPerMonth`). */
export const MAX_TOKENS_PER_MONTH = 1_000_000_000_000;
