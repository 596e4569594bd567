import { config } from '#shared/platform/config.ts';
import { JWT_ALG, loadJose, signingKey, verificationKeys } from './signing-keys.ts';

const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;

/** The verified caller. Tenant and roles come only from here, never from a request field. */
export interface Principal {
  userId: string;
  tenantId: string | null;
  roles: string[];
  permissions: string[];
  email: string;
  jti: string;
  expiresAt: number;
}

export type TokenSubject = Omit<Principal, 'jti' | 'expiresAt'>;

export async function issueAccessToken(subject: TokenSubject, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS) {
  const { kid, key } = await signingKey();
  const { SignJWT } = await loadJose();
  const token = await new SignJWT({
    tid: subject.tenantId,
    roles: subject.roles,
    perms: subject.permissions,
    email: subject.email,
  })
    .setProtectedHeader({ alg: JWT_ALG, kid, typ: 'JWT' })
    .setSubject(subject.userId)
    .setIssuer(config.issuer)
    .setAudience(config.audience)
    .setJti(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(key);
  return { accessToken: token, expiresIn: ttlSeconds };
}

export class InvalidTokenError extends Error {}

/**
 * Pins algorithm, issuer and audience. `ignoreExpiry` is only for the refresh route, which must
 * accept an expired access token whose signature is still good.
 */
export async function verifyAccessToken(token: string, opts: { ignoreExpiry?: boolean } = {}): Promise<Principal> {
  const keys = await verificationKeys();
  const { decodeProtectedHeader, errors, jwtVerify } = await loadJose();
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw new InvalidTokenError('Malformed token');
  }
  const key = kid ? keys.byKid.get(kid) : undefined;
  if (!key) throw new InvalidTokenError('Unknown signing key');
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [JWT_ALG],
      issuer: config.issuer,
      audience: config.audience,
      requiredClaims: ['sub', 'exp', 'jti'],
      ...(opts.ignoreExpiry ? { currentDate: new Date(((payload0(token).exp ?? 0) - 1) * 1000) } : {}),
    });
    return {
      userId: payload.sub!,
      tenantId: (payload.tid as string | null) ?? null,
      roles: Array.isArray(payload.roles) ? (payload.roles as string[]) : [],
      permissions: Array.isArray(payload.perms) ? (payload.perms as string[]) : [],
      email: String(payload.email ?? ''),
      jti: payload.jti!,
      expiresAt: payload.exp!,
    };
  } catch (err) {
    if (err instanceof errors.JOSEError) throw new InvalidTokenError(err.code);
    throw err;
  }
}

/** Unverified payload, used only to move the clock for an expiry-ignoring check. */
function payload0(token: string): { exp?: number } {
  try {
    const part = token.split('.')[1] ?? '';
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as { exp?: number };
  } catch {
    return {};
  }
}
