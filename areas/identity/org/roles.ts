import type { Principal } from '#shared/auth/access-token.ts';
import { PERMISSIONS, isPermission } from '#shared/auth/permissions.ts';
import { isSystemAdmin } from '#shared/auth/tenant-scope.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, orConflict, putNew, updateItem } from '#shared/data/commit.ts';
import { getOr404 } from '#shared/data/read.ts';
import { conflict, forbidden, notFound, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { identityKeys, roleItem, toRole, type RoleRecord } from '#areas/identity/records.ts';
import { ensureSystemRoles, systemRoleName } from '#areas/identity/system-roles.ts';

export interface NewRole {
  name: string;
  description?: string | null;
  scope?: string | null;
}

export async function listRoles(tenantId: string, q: { page: number; pageSize: number }) {
  let { items, totalCount } = await listNewestFirst(identityKeys.roles(tenantId), q);
  // A tenant that predates system roles gets them the first time its roles are listed.
  if (totalCount === 0 && (await ensureSystemRoles(tenantId)))
    ({ items, totalCount } = await listNewestFirst(identityKeys.roles(tenantId), q));
  return toPage(items.map(toRole), totalCount, q.page, q.pageSize);
}

/** Custom roles start without permissions; the name is unique per tenant, case-insensitively. */
export async function createRole(tenantId: string, input: NewRole, actor: Principal): Promise<RoleRecord> {
  if (systemRoleName(input.name)) throw conflict(`Role name '${input.name}' is reserved for a system role`);
  const role: RoleRecord = {
    id: crypto.randomUUID(),
    name: input.name,
    description: input.description || null,
    isSystem: false,
    tenantId,
    scope: input.scope || null,
    permissions: [],
    userCount: 0,
    createdAt: new Date().toISOString(),
  };
  await commitChange(
    [
      putNew(roleItem(role)),
      orConflict(
        putNew({ ...identityKeys.roleName(tenantId, role.name), roleId: role.id }),
        `A role named '${role.name}' already exists`,
      ),
      bumpCounter(identityKeys.roles(tenantId), 1),
    ],
    {
      entityType: 'Role',
      entityId: role.id,
      action: 'create',
      changes: { name: role.name, description: role.description, scope: role.scope },
      actor,
      tenantId,
    },
    { now: role.createdAt },
  );
  return role;
}

/**
 * Replaces a custom role's permissions. Only catalog entries are accepted, a system role is never
 * edited (409), and a caller other than a SystemAdmin can grant only permissions it holds itself.
 * Tokens already issued keep their permissions until they are renewed.
 */
export async function setRolePermissions(
  tenantId: string,
  roleId: string,
  requested: string[],
  actor: Principal,
): Promise<RoleRecord> {
  const unknown = requested.flatMap((p, i) =>
    isPermission(p) ? [] : [{ path: `body.permissions.${i}`, message: `Unknown permission '${p}'` }],
  );
  if (unknown.length)
    throw validationError(unknown, `Unknown permissions: ${requested.filter((p) => !isPermission(p)).join(', ')}`);
  const permissions = PERMISSIONS.filter((p) => requested.includes(p));

  const role = toRole(await getOr404(identityKeys.role(tenantId, roleId), 'Role', { consistent: true }));
  if (role.isSystem) throw conflict('System roles cannot be edited');
  if (!isSystemAdmin(actor)) {
    const notHeld = permissions.filter((p) => !actor.permissions.includes(p));
    if (notHeld.length) throw forbidden(`You cannot grant permissions you do not hold: ${notHeld.join(', ')}`);
  }

  await commitChange(
    [
      // Deleted meanwhile (system roles never match the condition either, and were refused above).
      orConflict(
        updateItem(
          identityKeys.role(tenantId, role.id),
          { permissions },
          { condition: 'attribute_exists(pk) AND isSystem = :false', values: { ':false': false } },
        ),
        notFound('Role'),
      ),
    ],
    {
      entityType: 'Role',
      entityId: role.id,
      action: 'update-permissions',
      changes: { permissions, previousPermissions: role.permissions },
      actor,
      tenantId,
    },
  );
  return { ...role, permissions };
}
