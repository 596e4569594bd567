import { issueAccessToken } from '#shared/auth/access-token.ts';
import { commitChange } from '#shared/data/commit.ts';
import { accountDisabled } from '#areas/identity/errors.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { permissionsFor } from '#areas/identity/permissions.ts';
import { toAuthenticatedUser, type UserItem } from '#areas/identity/records.ts';
import { newSession } from '#areas/identity/refresh-tokens.ts';
import { tenantRefusalError, tenantSignInRefusal } from '#areas/identity/tenant-status.ts';
import { authChange, recordAuth } from './audit.ts';

/** A user record as the auth area reads it: `sessionVersion` is bumped when all sessions are revoked. */
export type Account = UserItem;

export interface SignInContext {
  method: 'password' | 'identity-provider-a' | 'identity-provider-b';
  ip: string;
  rememberMe: boolean;
}

/**
 * Checks that apply after the credentials are proven, at sign-in and at every refresh: the account
 * is active and its tenant (if any) is Active. Returns the refusal as an error, or null.
 */
export async function signInRefusal(user: Account) {
  if (!user.isActive) return accountDisabled();
  const tenant = await tenantSignInRefusal(user.tenantId);
  return tenant ? tenantRefusalError(tenant) : null;
}

export const tokenSubject = (user: Account, permissions: string[]) => ({
  userId: user.id,
  tenantId: user.tenantId,
  roles: user.roles,
  permissions,
  email: user.email,
});

/**
 * The end of every sign-in (password or external provider): refusals, then either the
 * verification-required answer (no tokens) or a new session with its audit entry.
 */
export async function completeSignIn(user: Account, ctx: SignInContext) {
  const details = { method: ctx.method, ip: ctx.ip };
  const refusal = await signInRefusal(user);
  if (refusal) {
    await recordAuth({ action: 'login.failed', user, details: { ...details, reason: refusal.code } });
    countMetric('SignInRefused', refusal.code);
    throw refusal;
  }
  const permissions = await permissionsFor(user);
  const view = toAuthenticatedUser(user, permissions);
  if (!user.isEmailVerified) {
    await recordAuth({ action: 'login.unverified', user, details });
    countMetric('SignInRefused', 'EMAIL_NOT_VERIFIED');
    return { accessToken: '', refreshToken: '', expiresIn: 0, user: view, requiredEmailVerification: true };
  }
  const { accessToken, expiresIn } = await issueAccessToken(tokenSubject(user, permissions));
  const session = newSession(user, ctx.rememberMe);
  await commitChange(
    session.items,
    authChange({
      action: 'login.succeeded',
      user,
      details: { ...details, rememberMe: ctx.rememberMe, session: session.familyId },
    }),
  );
  countMetric('SignInSucceeded', ctx.method);
  return { accessToken, refreshToken: session.refreshToken, expiresIn, user: view, requiredEmailVerification: false };
}
