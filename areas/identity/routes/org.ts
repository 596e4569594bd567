import * as z from 'zod/mini';
import { ROLE_NAME_MAX, ROLE_NAME_PATTERN } from '#areas/identity/vocabulary.ts';
import type { Permission } from '#shared/auth/permissions.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { optionalText, pageOf, paging, searchTerm, text, uuid } from '#shared/routes/schemas.ts';

const roleSchema = once(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    description: z.nullable(z.string()),
    isSystem: z.boolean(),
    tenantId: z.string(),
    scope: z.nullable(z.string()),
    permissions: z.array(z.string()),
    userCount: z.number(),
    createdAt: z.string(),
  }),
);

const departmentSchema = once(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    tenantId: z.string(),
    parentId: z.nullable(z.string()),
    parentName: z.nullable(z.string()),
    childCount: z.number(),
    userCount: z.number(),
    createdAt: z.string(),
  }),
);

const groupSchema = once(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    tenantId: z.string(),
    description: z.nullable(z.string()),
    memberCount: z.number(),
    createdAt: z.string(),
  }),
);

const roleName = () =>
  z
    .string()
    .check(
      z.trim(),
      z.minLength(1),
      z.maxLength(ROLE_NAME_MAX),
      z.regex(ROLE_NAME_PATTERN, 'Letters, digits, spaces, ".", "_" and "-" only'),
    );

const bearer = (permission: Permission) => ({ kind: 'bearer', permission }) as const;
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));

/** Lists name the tenant in the query, creates in the body (for a SystemAdmin; tenant users act on their own). */
const listed = scope.tenant({ tenantFrom: 'query' });
const created = scope.tenant({ tenantFrom: 'body' });

export const orgRoutes = defineRoutes([
  {
    id: 'roles.list',
    method: 'GET',
    path: '/api/roles',
    group: 'org',
    auth: bearer('roles:read'),
    summary: 'List the roles of a tenant (system and custom) with userCount, newest first',
    scope: listed,
    status: 200,
    schemas: () => ({
      query: z.object({ ...tenantQuery(), ...paging() }),
      response: pageOf(roleSchema()),
    }),
  },
  {
    id: 'roles.create',
    method: 'POST',
    path: '/api/roles',
    group: 'org',
    auth: bearer('roles:write'),
    summary: 'Create a custom role (no permissions yet); the name is unique within the tenant (409 CONFLICT)',
    scope: created,
    status: 201,
    schemas: () => ({
      body: z.object({
        name: roleName(),
        description: optionalText(500),
        tenantId: uuid(),
        scope: optionalText(100),
      }),
      response: roleSchema(),
    }),
  },
  {
    id: 'roles.setPermissions',
    method: 'PUT',
    path: '/api/roles/{roleId}/permissions',
    group: 'org',
    auth: bearer('roles:write'),
    summary:
      "Replace a custom role's permissions with catalog entries (unknown ones: 400); system roles cannot be edited " +
      '(409 CONFLICT)',
    scope: scope.tenant({
      tenantFrom: 'query',
      record: { param: 'roleId', collection: 'ROLE', label: 'Role' },
    }),
    status: 200,
    schemas: () => ({
      params: z.object({ roleId: uuid() }),
      query: z.object(tenantQuery()),
      body: z.object({ permissions: z.array(z.string().check(z.trim(), z.maxLength(100))).check(z.maxLength(100)) }),
      response: roleSchema(),
    }),
  },
  {
    id: 'departments.list',
    method: 'GET',
    path: '/api/departments',
    group: 'org',
    auth: bearer('departments:read'),
    summary: 'List departments of a tenant, newest first; `parentId` lists the direct children of one department',
    scope: listed,
    status: 200,
    schemas: () => ({
      query: z.object({ ...tenantQuery(), parentId: z.optional(uuid()), ...paging() }),
      response: pageOf(departmentSchema()),
    }),
  },
  {
    id: 'departments.create',
    method: 'POST',
    path: '/api/departments',
    group: 'org',
    auth: bearer('departments:write'),
    summary: 'Create a department, optionally under a parent department of the same tenant',
    scope: created,
    status: 201,
    schemas: () => ({
      body: z.object({ name: text(200), tenantId: uuid(), parentId: z.optional(z.nullable(uuid())) }),
      response: departmentSchema(),
    }),
  },
  {
    id: 'groups.list',
    method: 'GET',
    path: '/api/groups',
    group: 'org',
    auth: bearer('groups:read'),
    summary: 'List groups of a tenant, newest first; `search` matches name and description',
    scope: listed,
    status: 200,
    schemas: () => ({
      query: z.object({ ...tenantQuery(), search: searchTerm(), ...paging() }),
      response: pageOf(groupSchema()),
    }),
  },
  {
    id: 'groups.create',
    method: 'POST',
    path: '/api/groups',
    group: 'org',
    auth: bearer('groups:write'),
    summary: 'Create a group; the name is unique within the tenant (409 CONFLICT)',
    scope: created,
    status: 201,
    schemas: () => ({
      body: z.object({ name: text(200), tenantId: uuid(), description: optionalText(2000) }),
      response: groupSchema(),
    }),
  },
  {
    id: 'groups.addUser',
    method: 'POST',
    path: '/api/groups/{groupId}/users',
    group: 'org',
    auth: bearer('groups:write'),
    summary: 'Add a user of the same tenant to a group; adding a member again changes nothing. Returns the group',
    scope: scope.tenant({
      tenantFrom: 'query',
      record: { param: 'groupId', collection: 'GROUP', label: 'Group' },
    }),
    status: 200,
    schemas: () => ({
      params: z.object({ groupId: uuid() }),
      query: z.object({ ...tenantQuery(), userId: uuid() }),
      response: groupSchema(),
    }),
  },
]);
