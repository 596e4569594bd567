import { createHash } from 'node:crypto';
import { PERMISSIONS, SYSTEM_ROLE_PERMISSIONS, type SystemRole } from '#shared/auth/permissions.ts';
import { checkItem, commitChange, putNew, type TransactItem } from '#shared/data/commit.ts';
import { keys, type Item } from '#shared/data/keys.ts';
import { getMany } from '#shared/data/read.ts';
import { conflict } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import { identityKeys, roleItem, toRole, type RoleRecord } from './records.ts';
import { TENANT_SYSTEM_ROLES, type TenantSystemRole } from './vocabulary.ts';
import { committedUnless } from '#shared/data/write-one.ts';

export type { RoleRecord };

const RESERVED = new Map(['SystemAdmin', ...TENANT_SYSTEM_ROLES].map((n) => [n.toLowerCase(), n]));

/** The canonical system role a name denotes (case-insensitive), if any; SystemAdmin included. */
export const systemRoleName = (name: string): SystemRole | undefined =>
  RESERVED.get(name.toLowerCase()) as SystemRole | undefined;

/**
 * A system role's id is derived from its tenant and name (a v4-shaped UUID of a hash), so its
 * counters can be addressed without a read and re-creating it is idempotent.
 */
export function systemRoleId(tenantId: string, name: TenantSystemRole): string {
  const b = createHash('sha256').update(`${tenantId}#ROLE#${name}`).digest();
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const SYSTEM_DESCRIPTIONS: Record<TenantSystemRole, string> = {
  TenantOwner: 'Owner of the tenant: every tenant permission',
  TenantMember: 'Member of the tenant: read permissions',
};

/**
 * Transaction items that create the tenant's system roles TenantOwner and TenantMember (isSystem
 * true) with their unique-name claims and the role collection counter.
 */
export function systemRoleItems(tenantId: string, now: string): TransactItem[] {
  const items: TransactItem[] = [];
  for (const name of TENANT_SYSTEM_ROLES) {
    const role: RoleRecord = {
      id: systemRoleId(tenantId, name),
      name,
      description: SYSTEM_DESCRIPTIONS[name],
      isSystem: true,
      tenantId,
      scope: null,
      permissions: [],
      userCount: 0,
      createdAt: now,
    };
    items.push(putNew(roleItem(role)), putNew({ ...identityKeys.roleName(tenantId, name), roleId: role.id }));
  }
  items.push({
    Update: {
      TableName: config.tableName,
      Key: keys.counter(identityKeys.roles(tenantId)),
      UpdateExpression: 'ADD #count :n',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':n': TENANT_SYSTEM_ROLES.length },
    },
  });
  return items;
}

/**
 * Creates the system roles of an existing tenant that predates them (idempotent: when they exist,
 * or the tenant does not, a condition fails and nothing is written). Returns whether it created them.
 */
export async function ensureSystemRoles(tenantId: string): Promise<boolean> {
  const present = conflict('The system roles exist already, or the tenant does not');
  const failed = await committedUnless(
    commitChange(
      [
        checkItem(identityKeys.tenant(tenantId), 'attribute_exists(pk)'),
        ...systemRoleItems(tenantId, new Date().toISOString()),
      ],
      {
        entityType: 'Role',
        entityId: tenantId,
        action: 'create-system-roles',
        changes: { roles: [...TENANT_SYSTEM_ROLES] },
        actor: null,
        tenantId,
      },
      { onConflict: present },
    ),
    present,
  );
  return !failed;
}

const uniqueNames = (names: string[]) => [...new Map(names.map((n) => [n.toLowerCase(), n])).values()];

/**
 * Role ids by lower-cased name. System roles need no read; custom ones are found through their
 * unique-name claims (one BatchGet). SystemAdmin never resolves to a tenant role.
 */
export async function roleIdsByName(tenantId: string, names: string[]): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const custom: string[] = [];
  for (const name of uniqueNames(names)) {
    const system = systemRoleName(name);
    if (system === 'SystemAdmin') continue;
    if (system) ids.set(name.toLowerCase(), systemRoleId(tenantId, system as TenantSystemRole));
    else custom.push(name.toLowerCase());
  }
  if (custom.length) {
    const claims = [...(await getMany<Item>(custom.map((n) => identityKeys.roleName(tenantId, n)))).values()];
    for (const claim of claims) {
      const lower = (claim.pk as string).slice(identityKeys.roleName(tenantId, '').pk.length);
      ids.set(lower, claim.roleId as string);
    }
  }
  return ids;
}

/** Resolve role names of a tenant to records (system + custom); unknown names are returned in `missing`. */
export async function resolveRoles(
  tenantId: string,
  names: string[],
  retried = false,
): Promise<{ found: RoleRecord[]; missing: string[] }> {
  const wanted = uniqueNames(names);
  const ids = await roleIdsByName(tenantId, wanted);
  const items = ids.size
    ? [...(await getMany<Item>([...new Set(ids.values())].map((id) => identityKeys.role(tenantId, id)))).values()]
    : [];
  const byLower = new Map(items.map((item) => [(item.name as string).toLowerCase(), toRole(item)]));
  const found: RoleRecord[] = [];
  const missing: string[] = [];
  for (const name of wanted) {
    const role = byLower.get(name.toLowerCase());
    if (role && role.tenantId === tenantId) found.push(role);
    else missing.push(name);
  }
  // A tenant created before system roles existed gets them on first use.
  if (!retried && missing.some((n) => systemRoleName(n) && systemRoleName(n) !== 'SystemAdmin')) {
    await ensureSystemRoles(tenantId);
    return resolveRoles(tenantId, names, true);
  }
  return { found, missing };
}

/**
 * Permissions granted by the given role names in a tenant (system roles from
 * SYSTEM_ROLE_PERMISSIONS, custom roles from their stored list). Used at token issue.
 */
export async function permissionsForRoles(tenantId: string | null, roleNames: string[]): Promise<string[]> {
  const granted = new Set<string>();
  const custom: string[] = [];
  for (const name of roleNames) {
    const system = systemRoleName(name);
    if (system) for (const p of SYSTEM_ROLE_PERMISSIONS[system]) granted.add(p);
    else custom.push(name);
  }
  if (tenantId && custom.length) {
    const { found } = await resolveRoles(tenantId, custom);
    for (const role of found) for (const p of role.permissions) granted.add(p);
  }
  return PERMISSIONS.filter((p) => granted.has(p));
}
