import { InvalidTokenError, issueAccessToken, verifyAccessToken, type Principal } from '#shared/auth/access-token.ts';
import { epochSeconds } from '#shared/auth/opaque.ts';
import { familyIsLive, findRefreshToken, getFamily, revokeFamily, rotate } from '#areas/identity/refresh-tokens.ts';
import { unauthorized } from '#shared/http/errors.ts';
import { permissionsFor } from '#areas/identity/permissions.ts';
import { getUser } from '#areas/identity/user-accounts.ts';
import { recordAuth } from './audit.ts';
import { signInRefusal, tokenSubject } from './session.ts';

const invalidRefresh = () => unauthorized('Invalid, expired or revoked refresh token');

/** Reuse of a rotated token means it leaked: the whole family is revoked (RFC 9700 4.14.2). */
async function reuseDetected(familyId: string, principal: Principal, ip: string) {
  await revokeFamily(familyId, 'reuse');
  const user = { id: principal.userId, email: principal.email, tenantId: principal.tenantId };
  await recordAuth({ action: 'token.reuse', user, details: { ip, session: familyId } });
  return invalidRefresh();
}

/**
 * Rotation. The bearer token (checked by the runtime with expiry ignored) and the body's access token
 * must both verify and name the refresh token's user. A refresh token of another user is 401 and
 * changes nothing; a rotated one revokes its family; user, tenant and session version are re-checked,
 * and the new access token carries the user's current roles and permissions.
 */
export async function refresh(principal: Principal, input: { accessToken: string; refreshToken: string }, ip: string) {
  let bodyPrincipal: Principal;
  try {
    bodyPrincipal = await verifyAccessToken(input.accessToken, { ignoreExpiry: true });
  } catch (err) {
    if (err instanceof InvalidTokenError) throw unauthorized('Invalid access token');
    throw err;
  }
  if (bodyPrincipal.userId !== principal.userId) throw unauthorized('Invalid access token');
  const token = await findRefreshToken(input.refreshToken);
  if (!token || token.userId !== principal.userId) throw invalidRefresh();
  if (token.status !== 'active') throw await reuseDetected(token.familyId, principal, ip);
  if (token.expiresAt <= epochSeconds()) throw invalidRefresh();
  const [family, user] = await Promise.all([getFamily(token.familyId), getUser(token.tenantId, token.userId)]);
  if (!user || !family || !familyIsLive(family, user)) throw invalidRefresh();
  const refusal = await signInRefusal(user);
  if (refusal) throw refusal;
  const rotated = await rotate(input.refreshToken, family);
  if (!rotated.ok) {
    if (rotated.reason === 'reused') throw await reuseDetected(family.familyId, principal, ip);
    throw invalidRefresh();
  }
  const { accessToken, expiresIn } = await issueAccessToken(tokenSubject(user, await permissionsFor(user)));
  return { accessToken, refreshToken: rotated.refreshToken, expiresIn };
}

/** Revokes the token's family. Another user's or an unknown token is 401; a repeated logout is 204. */
export async function logout(principal: Principal, input: { refreshToken: string }, ip: string) {
  const actor = { id: principal.userId, email: principal.email, tenantId: principal.tenantId };
  const token = await findRefreshToken(input.refreshToken);
  if (!token || token.userId !== principal.userId) {
    await recordAuth({ action: 'logout.failed', user: actor, details: { ip, reason: 'INVALID_REFRESH_TOKEN' } });
    throw invalidRefresh();
  }
  await revokeFamily(token.familyId, 'logout');
  await recordAuth({ action: 'logout', user: actor, details: { ip, session: token.familyId } });
}
