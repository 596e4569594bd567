import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { orgRoutes } from '#areas/identity/routes/org.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { createDepartment, listDepartments } from '#areas/identity/org/departments.ts';
import { addUserToGroup, createGroup, listGroups } from '#areas/identity/org/groups.ts';
import { createRole, listRoles, setRolePermissions } from '#areas/identity/org/roles.ts';

/** Creates name their tenant in the body; the route's scope has resolved it (and checked it is the caller's). */
const withoutTenant = <B extends { tenantId: string }>({ tenantId: _, ...input }: B) => input;

export const handler = apiHandler(
  orgRoutes,
  {
    'roles.list': async ({ tenantId, query }) => await listRoles(tenantId, query),
    'roles.create': async ({ principal, tenantId, body }) => await createRole(tenantId, withoutTenant(body), principal),
    'roles.setPermissions': async ({ principal, tenantId, params, body }) =>
      await setRolePermissions(tenantId, params.roleId, body.permissions, principal),
    'departments.list': async ({ tenantId, query }) => await listDepartments(tenantId, query),
    'departments.create': async ({ principal, tenantId, body }) =>
      await createDepartment(tenantId, withoutTenant(body), principal),
    'groups.list': async ({ tenantId, query }) => await listGroups(tenantId, query),
    'groups.create': async ({ principal, tenantId, body }) =>
      await createGroup(tenantId, withoutTenant(body), principal),
    'groups.addUser': async ({ principal, tenantId, params, query }) =>
      await addUserToGroup(tenantId, params.groupId, query.userId, principal),
  },
  { tenants: tenantDirectory },
);
