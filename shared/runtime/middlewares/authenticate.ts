import { timingSafeEqual, createHash } from 'node:crypto';
import { InvalidTokenError, verifyAccessToken, type Principal } from '#shared/auth/access-token.ts';
import { forbidden, invalidApiKey, unauthorized } from '#shared/http/errors.ts';
import type { AuthRule } from '#shared/routes/types.ts';
import { internalApiKey } from '#shared/auth/internal-key.ts';
import type { CredentialResolvers } from '#shared/runtime/credentials.ts';
import { header, type MiddyRequest } from '#shared/runtime/request.ts';

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/;

async function bearerPrincipal(request: MiddyRequest, ignoreExpiry = false): Promise<Principal> {
  const match = BEARER.exec(header(request.event, 'authorization') ?? '');
  if (!match) throw unauthorized('Missing or malformed bearer token');
  try {
    return await verifyAccessToken(match[1]!, { ignoreExpiry });
  } catch (err) {
    if (err instanceof InvalidTokenError) throw unauthorized('Invalid or expired token');
    throw err;
  }
}

/** SystemAdmin passes every rule; otherwise any listed role or the named permission. */
function allows(rule: { roles?: readonly string[]; permission?: string }, principal: Principal): boolean {
  if (principal.roles.includes('SystemAdmin')) return true;
  if (!rule.roles && !rule.permission) return true;
  if (rule.roles?.some((r) => principal.roles.includes(r))) return true;
  return rule.permission !== undefined && principal.permissions.includes(rule.permission);
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time comparison: hashing first makes both sides the same length. */
export const sameSecret = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));

async function check(rule: AuthRule, request: MiddyRequest): Promise<Principal | null> {
  switch (rule.kind) {
    case 'none':
    case 'signature':
    case 'gatewayKey':
    case 'widgetSession':
      // Provider signatures are checked by the webhook handler, which needs the raw body and secret.
      return null;
    case 'bearer': {
      const principal = await bearerPrincipal(request, rule.allowExpired);
      if (!allows(rule, principal)) throw forbidden();
      return principal;
    }
    case 'internalKey': {
      const given = header(request.event, 'x-internal-api-key');
      if (!given || !sameSecret(given, await internalApiKey())) {
        throw unauthorized('Missing or invalid internal API key');
      }
      if (!rule.roles) return null;
      const principal = await bearerPrincipal(request);
      if (!allows({ roles: rule.roles }, principal)) throw forbidden();
      return principal;
    }
  }
}

/**
 * A gateway key names its tenant; an unknown one is 401 (code INVALID_API_KEY, `invalid_api_key` on
 * the wire). Whether it is revoked, expired or allowed the model is the gateway's to say, after the
 * model (the spec's order of refusals). Without a key, a signed-in user's token.
 */
async function gatewayKeyOrUser(
  request: MiddyRequest,
  keys: CredentialResolvers['gatewayKey'],
  permission: string | undefined,
): Promise<Principal | null> {
  const secret = keys.secretOf(header(request.event, 'authorization'));
  if (secret) {
    const found = await keys.find(secret);
    if (!found) throw invalidApiKey();
    request.context.state.gatewayKey = found;
    return null;
  }
  const principal = await bearerPrincipal(request);
  if (!allows({ permission }, principal)) throw forbidden();
  return principal;
}

/** Resolves the caller by the route's auth rule; an area's credentials through the resolvers its function gave. */
export const authenticate = (credentials: Partial<CredentialResolvers>) => ({
  before: async (request: MiddyRequest) => {
    const { state } = request.context;
    state.gatewayKey = null;
    state.widgetSession = null;
    const rule = state.route!.auth;
    if (rule.kind === 'widgetSession') {
      state.widgetSession = credentials.widgetSession!.read((name) => header(request.event, name));
      if (!state.widgetSession) throw unauthorized('Missing or malformed widget session');
    }
    state.principal =
      rule.kind === 'gatewayKey'
        ? await gatewayKeyOrUser(request, credentials.gatewayKey!, rule.permission)
        : await check(rule, request);
  },
});
