import * as z from 'zod/mini';
import { newPassword } from '#areas/identity/password-policy.ts';
import { MAX_ROLES_PER_USER } from '#areas/identity/vocabulary.ts';
import { nameText, nullResult, optionalText, pageOf, paging, searchTerm, text, uuid } from '#shared/routes/schemas.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';

/** The spec's `PUT /api/users/{userId:password-reset}` spelling: a user id with this suffix. */
const PASSWORD_RESET_SUFFIX = ':password-reset';

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

const userListItemSchema = once(() =>
  z.object({
    id: z.string(),
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    phoneNumber: z.nullable(z.string()),
    roles: z.array(z.string()),
    tenantId: z.string(),
    isActive: z.boolean(),
    isEmailVerified: z.boolean(),
    avatarUrl: z.nullable(z.string()),
    departmentId: z.nullable(z.string()),
    createdAt: z.string(),
  }),
);

const userDetailSchema = once(() =>
  z.extend(userListItemSchema(), {
    departmentName: z.nullable(z.string()),
    groups: z.array(z.object({ id: z.string(), name: z.string() })),
  }),
);

export const userUpdateBody = once(() =>
  z.object({
    firstName: nameText(100),
    lastName: nameText(100),
    phoneNumber: optionalText(40),
    departmentId: z.optional(z.nullable(uuid())),
    roles: z.array(text(100)).check(z.minLength(1, 'At least one role'), z.maxLength(MAX_ROLES_PER_USER)),
    isActive: z.boolean(),
  }),
);

const passwordResetBody = once(() => z.object({ newPassword: newPassword() }));

export type UserUpdateInput = z.output<ReturnType<typeof userUpdateBody>>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Body of `PUT /api/users/{userId}`. API Gateway routes `PUT /api/users/{id}:password-reset` here
 * (a path segment cannot be split), so this route takes either an update or a password reset:
 * a body naming `newPassword` and no `firstName` is read as a reset, anything else as an update.
 * The handler then checks that the kind matches the user id's suffix.
 */
export const userUpdateOrResetBody = once(() =>
  z.pipe(
    z.unknown(),
    z.transform((value: unknown, ctx) => {
      if (!isObject(value)) return { kind: 'not-an-object' as const };
      const isReset = 'newPassword' in value && !('firstName' in value);
      const parsed = z.safeParse(isReset ? passwordResetBody() : userUpdateBody(), value);
      if (!parsed.success) {
        for (const issue of parsed.error.issues)
          ctx.issues.push({ code: 'custom', message: issue.message, path: issue.path, input: value });
        return z.NEVER;
      }
      return isReset
        ? { kind: 'reset' as const, reset: parsed.data as z.output<ReturnType<typeof passwordResetBody>> }
        : { kind: 'update' as const, update: parsed.data as UserUpdateInput };
    }),
  ),
);

const tenantQuery = once(() => z.object({ tenantId: z.optional(uuid()) }));
const userParams = once(() => z.object({ userId: uuid() }));
const bearer = (permission: 'users:read' | 'users:write') => ({ kind: 'bearer', permission }) as const;

/**
 * `{userId}` of PUT /api/users/{userId}: a user id, or one with the password-reset suffix. The
 * handler gets the canonical id (lowercase, suffix removed, so the tenant scope finds the record)
 * and whether the suffix was there.
 */
const userIdOrReset = once(() =>
  z.pipe(
    z.object({
      userId: z.string().check(z.regex(new RegExp(`^${UUID}(${PASSWORD_RESET_SUFFIX})?$`), 'Invalid UUID')),
    }),
    z.transform(({ userId }) => ({
      userId: userId.slice(0, 36).toLowerCase(),
      passwordReset: userId.endsWith(PASSWORD_RESET_SUFFIX),
    })),
  ),
);

/** A tenant's users: a SystemAdmin names the tenant with `tenantId`, or (by id) leaves it to the user's id. */
const tenantUsers = scope.tenant({ tenantFrom: 'query' });
const tenantUser = scope.tenant({
  tenantFrom: 'query',
  record: { param: 'userId', collection: 'USER', label: 'User' },
});

export const userRoutes = defineRoutes([
  {
    id: 'users.list',
    method: 'GET',
    path: '/api/users',
    group: 'users',
    auth: bearer('users:read'),
    summary:
      'List the users of a tenant newest first (`tenantId` required for a SystemAdmin); `search` matches name and ' +
      'e-mail, `roleFilter` a role name, `statusFilter` active or inactive',
    scope: tenantUsers,
    status: 200,
    schemas: () => ({
      query: z.object({
        tenantId: z.optional(uuid()),
        search: searchTerm(),
        roleFilter: z.optional(z.string().check(z.trim(), z.maxLength(100))),
        statusFilter: z.optional(
          z.pipe(
            z.string().check(z.trim(), z.toLowerCase()),
            z.enum(['active', 'inactive'], 'Expected active or inactive'),
          ),
        ),
        ...paging(),
      }),
      response: pageOf(userListItemSchema()),
    }),
  },
  {
    id: 'users.get',
    method: 'GET',
    path: '/api/users/{userId}',
    group: 'users',
    auth: bearer('users:read'),
    summary: 'User detail with departmentName and groups (`tenantId` names the tenant for a SystemAdmin)',
    scope: tenantUser,
    status: 200,
    schemas: () => ({
      params: userParams(),
      query: tenantQuery(),
      response: userDetailSchema(),
    }),
  },
  {
    id: 'users.update',
    method: 'PUT',
    path: '/api/users/{userId}',
    group: 'users',
    auth: bearer('users:write'),
    summary:
      'Update a user: roles must exist in the tenant, the department must be in the tenant; nobody deactivates ' +
      'itself or leaves the tenant without an active TenantOwner (409). Deactivating revokes the refresh tokens. ' +
      '`{userId}:password-reset` with `{newPassword}` is the admin password reset (answers null)',
    scope: tenantUser,
    status: 200,
    schemas: () => ({
      params: userIdOrReset(),
      query: tenantQuery(),
      body: userUpdateOrResetBody(),
      documentedBody: z.union([
        userUpdateBody().check(z.meta({ title: 'UserUpdate', description: 'The update, on `{userId}`' })),
        passwordResetBody().check(
          z.meta({
            title: 'AdminPasswordReset',
            description: 'The admin password reset, on `{userId}:password-reset`',
          }),
        ),
      ]),
      // The password-reset spelling answers like users.passwordReset: null.
      response: z.nullable(userDetailSchema()),
    }),
  },
  {
    id: 'users.delete',
    method: 'DELETE',
    path: '/api/users/{userId}',
    group: 'users',
    auth: bearer('users:write'),
    summary:
      'Delete a user (not oneself, not the last active TenantOwner: 409); frees a seat and revokes its refresh tokens',
    scope: tenantUser,
    status: 204,
    schemas: () => ({
      params: userParams(),
      query: tenantQuery(),
    }),
  },
  {
    id: 'users.passwordReset',
    method: 'PUT',
    path: '/api/users/{userId}/password-reset',
    group: 'users',
    auth: bearer('users:write'),
    summary: "Set a user's password (administrator reset) and revoke all its refresh tokens",
    scope: tenantUser,
    status: 200,
    aliases: [`/api/users/{userId}${PASSWORD_RESET_SUFFIX}`],
    schemas: () => ({
      params: userParams(),
      query: tenantQuery(),
      body: passwordResetBody(),
      response: nullResult(),
    }),
  },
]);
