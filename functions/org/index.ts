import { scopeRecord, scopeTenant } from '#shared/auth/tenant-scope.ts';

import { orgRoutes } from '#shared/routes/org.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { createDepartment, listDepartments } from '#areas/identity/org/departments.ts';
import { addUserToGroup, createGroup, listGroups } from '#areas/identity/org/groups.ts';
import { createRole, listRoles, setRolePermissions } from '#areas/identity/org/roles.ts';

export const handler = apiHandler(orgRoutes, {
  'roles.list': async ({ principal, query }) => await listRoles(await scopeTenant(principal!, query.tenantId), query),
  'roles.create': async ({ principal, body }) => {
    const { tenantId, ...input } = body;
    return await createRole(await scopeTenant(principal!, tenantId, 'body.tenantId'), input, principal!);
  },
  'roles.setPermissions': async ({ principal, params, query, body }) =>
    await setRolePermissions(
      await scopeRecord(principal!, query.tenantId, {
        collection: 'ROLE',
        id: params.roleId.toLowerCase(),
        label: 'Role',
      }),
      params.roleId,
      body.permissions,
      principal!,
    ),
  'departments.list': async ({ principal, query }) =>
    await listDepartments(await scopeTenant(principal!, query.tenantId), query),
  'departments.create': async ({ principal, body }) => {
    const { tenantId, ...input } = body;
    return await createDepartment(await scopeTenant(principal!, tenantId, 'body.tenantId'), input, principal!);
  },
  'groups.list': async ({ principal, query }) => await listGroups(await scopeTenant(principal!, query.tenantId), query),
  'groups.create': async ({ principal, body }) => {
    const { tenantId, ...input } = body;
    return await createGroup(await scopeTenant(principal!, tenantId, 'body.tenantId'), input, principal!);
  },
  'groups.addUser': async ({ principal, params, query }) =>
    await addUserToGroup(
      await scopeRecord(principal!, query.tenantId, {
        collection: 'GROUP',
        id: params.groupId.toLowerCase(),
        label: 'Group',
      }),
      params.groupId,
      query.userId,
      principal!,
    ),
});
