import { safeParse } from 'zod/mini';
import type { Principal } from '#shared/auth/access-token.ts';
import { scopeRecord, scopeTenant } from '#shared/auth/tenant-scope.ts';
import { invalidJson, notFound, validationError } from '#shared/http/errors.ts';

import { PASSWORD_RESET_SUFFIX, userRoutes, userUpdateBody } from '#shared/routes/users.ts';
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

const scopeUser = (principal: Principal, tenantId: string | undefined, id: string) =>
  scopeRecord(principal, tenantId, { collection: 'USER', id, label: 'User' });

export const handler = apiHandler(userRoutes, {
  'users.list': async ({ principal, query }) => await listUsers(await scopeTenant(principal!, query.tenantId), query),
  'users.get': async ({ principal, params, query }) => {
    const userId = params.userId.toLowerCase();
    const user = await userDetail(await scopeUser(principal!, query.tenantId, userId), userId);
    if (!user) throw notFound('User');
    return user;
  },
  // API Gateway cannot route `{userId}:password-reset` apart from `{userId}`, so that spelling lands here.
  'users.update': async ({ principal, params, query, body, rawBody }) => {
    const isReset = params.userId.endsWith(PASSWORD_RESET_SUFFIX);
    const userId = params.userId.slice(0, 36).toLowerCase();
    const tenantId = await scopeUser(principal!, query.tenantId, userId);
    if (body.kind === 'not-an-object') throw invalidJson('Request body must be a JSON object');
    if (isReset) {
      if (body.kind !== 'reset') throw validationError([{ path: 'body.newPassword', message: 'Required' }]);
      return await resetPassword(principal!, tenantId, userId, body.reset.newPassword);
    }
    if (body.kind !== 'update') throw validationError(updateIssues(rawBody));
    return await updateUser(principal!, tenantId, userId, body.update);
  },
  'users.delete': async ({ principal, params, query }) => {
    const userId = params.userId.toLowerCase();
    await deleteUser(principal!, await scopeUser(principal!, query.tenantId, userId), userId);
  },
  'users.passwordReset': async ({ principal, params, query, body }) => {
    const userId = params.userId.toLowerCase();
    return await resetPassword(
      principal!,
      await scopeUser(principal!, query.tenantId, userId),
      userId,
      body.newPassword,
    );
  },
});
