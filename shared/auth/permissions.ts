/** The one permission catalog. Routes name one of these; roles grant them. */
export const PERMISSIONS = [
  'users:read',
  'users:write',
  'tenants:read',
  'tenants:write',
  'roles:read',
  'roles:write',
  'departments:read',
  'departments:write',
  'groups:read',
  'groups:write',
  'suppliers:read',
  'suppliers:write',
  'products:read',
  'products:write',
  'bcm:read',
  'bcm:write',
  'billing:read',
  'billing:manage',
  'prompts:read',
  'prompts:write',
  'tools:read',
  'tools:write',
  'analytics:read',
  // The AI runtime: agents, widgets, channels, gateway keys and usage (`ai:`), knowledge bases,
  // the conversation inbox. TenantMember reads; writes need TenantOwner or a role holding them.
  'ai:read',
  'ai:manage',
  // Calling models with one's own sign-in (the gateway's `/v1`): it spends the tenant's allowance,
  // so it is granted, not read-level.
  'ai:use',
  'knowledge:read',
  'knowledge:write',
  'conversations:read',
  'conversations:write',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

const ROLE_NAMES = ['SystemAdmin', 'TenantOwner', 'TenantMember'] as const;
export type SystemRole = (typeof ROLE_NAMES)[number];

/** System roles' grants; custom roles store their own list. */
export const SYSTEM_ROLE_PERMISSIONS: Record<SystemRole, readonly Permission[]> = {
  SystemAdmin: PERMISSIONS,
  TenantOwner: PERMISSIONS,
  TenantMember: PERMISSIONS.filter((p) => p.endsWith(':read')),
};

export const isPermission = (value: string): value is Permission => (PERMISSIONS as readonly string[]).includes(value);
