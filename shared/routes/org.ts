import * as z from 'zod/mini';
import type { Permission } from '#shared/auth/permissions.ts';
import { defineRoutes, once } from './types.ts';
import { optionalText, pageOf, paging, searchTerm, text, uuid } from './schemas.ts';

export const roleSchema = once(() =>
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

export const departmentSchema = once(() =>
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

export const groupSchema = once(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    tenantId: z.string(),
    description: z.nullable(z.string()),
    memberCount: z.number(),
    createdAt: z.string(),
  }),
);

/** Role names appear in tokens and user filters: letters, digits, space, `.`, `_`, `-`. */
const roleName = () =>
  z
    .string()
    .check(
      z.trim(),
      z.minLength(1),
      z.maxLength(64),
      z.regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'Letters, digits, spaces, ".", "_" and "-" only'),
    );

const bearer = (permission: Permission) => ({ kind: 'bearer', permission }) as const;
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));

export const orgRoutes = defineRoutes([
  {
    id: 'roles.list',
    method: 'GET',
    path: '/api/roles',
    group: 'org',
    auth: bearer('roles:read'),
    summary: 'List the roles of a tenant (system and custom) with userCount, newest first',
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
      "Replace a custom role's permissions with catalog entries (unknown ones: 400); system roles cannot be edited (409 CONFLICT)",
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
    status: 200,
    schemas: () => ({
      params: z.object({ groupId: uuid() }),
      query: z.object({ ...tenantQuery(), userId: uuid() }),
      response: groupSchema(),
    }),
  },
]);
