import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { safeParse } from 'zod/mini';
import { invalidJson, validationError } from '#shared/http/errors.ts';
import { userRoutes, userUpdateBody } from '#areas/identity/routes/users.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { listUsers, userDetail } from '#areas/identity/users/list.ts';
import { deleteUser, resetPassword, updateUser } from '#areas/identity/users/mutations.ts';

/** The update schema's issues for a body that was read as a password reset on the plain route. */
function updateIssues(rawBody: string | undefined) {
  let value: unknown;
  try {
    value = JSON.parse(rawBody ?? '');
  } catch {
    value = undefined;
  }
  const parsed = safeParse(userUpdateBody(), value);
  return parsed.success
    ? []
    : parsed.error.issues.map((i) => ({ path: ['body', ...i.path.map(String)].join('.'), message: i.message }));
}

export const handler = apiHandler(
  userRoutes,
  {
    'users.list': async ({ tenantId, query }) => await listUsers(tenantId, query),
    'users.get': async ({ tenantId, params }) => await userDetail(tenantId, params.userId),
    // API Gateway cannot route `{userId}:password-reset` apart from `{userId}`, so that spelling lands here.
    'users.update': async ({ principal, tenantId, params, body, rawBody }) => {
      if (body.kind === 'not-an-object') throw invalidJson('Request body must be a JSON object');
      if (params.passwordReset) {
        if (body.kind !== 'reset') throw validationError([{ path: 'body.newPassword', message: 'Required' }]);
        return await resetPassword(principal, tenantId, params.userId, body.reset.newPassword);
      }
      if (body.kind !== 'update') throw validationError(updateIssues(rawBody));
      return await updateUser(principal, tenantId, params.userId, body.update);
    },
    'users.delete': async ({ principal, tenantId, params }) => {
      await deleteUser(principal, tenantId, params.userId);
    },
    'users.passwordReset': async ({ principal, tenantId, params, body }) =>
      await resetPassword(principal, tenantId, params.userId, body.newPassword),
  },
  { tenants: tenantDirectory },
);
