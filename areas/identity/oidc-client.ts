import { createHash } from 'node:crypto';
import type { createRemoteJWKSet, JWTPayload } from 'jose';
import { loadJose } from '#shared/auth/signing-keys.ts';
import { epochSeconds, randomToken, sameDigest, sha256 } from '#shared/auth/opaque.ts';
import { deleteItem, putNew } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import {
  invalidAuthorizationCode,
  invalidClientBinding,
  invalidIdToken,
  invalidState,
  providerError,
} from './errors.ts';
import { providerClientSecret, type OidcProviderConfig, type ProviderId } from './identity-providers.ts';
import { flowKey, type AuthorizationFlow } from './records.ts';
import { writeOne } from '#shared/data/write-one.ts';

/**
 * A generic OpenID Connect authorization-code client: server-stored state (single use, 10 minutes,
 * bound to provider, redirect URI and the client that started it), nonce, PKCE S256, client secret
 * authentication at the token endpoint, and ID token verification against the provider's cached JWKS.
 */
const FLOW_TTL_SECONDS = 10 * 60;
const FETCH_TIMEOUT_MS = 8_000;

export type { AuthorizationFlow };

export const pkceChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export function authorizationUrl(
  cfg: OidcProviderConfig,
  params: { redirectUri: string; state: string; nonce: string; codeChallenge?: string },
) {
  const url = new URL(cfg.authorizationEndpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', cfg.clientId);
  url.searchParams.set('redirect_uri', params.redirectUri);
  url.searchParams.set('scope', cfg.scope);
  url.searchParams.set('state', params.state);
  url.searchParams.set('nonce', params.nonce);
  if (params.codeChallenge) {
    url.searchParams.set('code_challenge', params.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url.toString();
}

/**
 * Stores the flow under its state and builds the URL. `clientBinding` goes only to the client that
 * called: the provider never sees it, so it is not in the callback URL a proxy log or a referrer leaks.
 */
export async function startFlow(cfg: OidcProviderConfig, redirectUri: string, now = new Date()) {
  const state = randomToken();
  const nonce = randomToken();
  const clientBinding = randomToken();
  const codeVerifier = cfg.pkce ? randomToken() : null;
  const expiresAt = epochSeconds(now.getTime()) + FLOW_TTL_SECONDS;
  const flow: AuthorizationFlow = {
    provider: cfg.id,
    redirectUri,
    stateHash: sha256(state),
    nonceHash: sha256(nonce),
    bindingHash: sha256(clientBinding),
    codeVerifier,
    expiresAt,
    createdAt: now.toISOString(),
  };
  // The state is 256 random bits: a flow already stored under it is not ours, and never handed out.
  const stored = await writeOne(putNew({ ...flowKey(flow.stateHash), ...flow, ttl: expiresAt }));
  if (!stored.written) throw new Error('OAuth state collision: a flow is already stored under this state');
  return {
    authorizationUrl: authorizationUrl(cfg, {
      redirectUri,
      state,
      nonce,
      ...(codeVerifier ? { codeChallenge: pkceChallenge(codeVerifier) } : {}),
    }),
    state,
    clientBinding,
    clientId: cfg.clientId,
  };
}

const flowByStateHash = (stateHash: string) => get<AuthorizationFlow>(flowKey(stateHash), { consistent: true });

/**
 * The live flow for a state value, checked against provider, redirect URI and the client binding
 * (constant-time); 400 INVALID_STATE otherwise. A wrong binding does not consume the flow, so a
 * stranger holding a leaked URL cannot spoil its owner's sign-in either.
 */
export async function flowForState(
  provider: ProviderId,
  input: { state: string; redirectUri: string; clientBinding: string },
  now = Date.now(),
): Promise<AuthorizationFlow> {
  const flow = await flowByStateHash(sha256(input.state));
  if (
    !flow ||
    flow.expiresAt <= epochSeconds(now) ||
    flow.provider !== provider ||
    flow.redirectUri !== input.redirectUri
  )
    throw invalidState();
  if (typeof flow.bindingHash !== 'string' || !sameDigest(sha256(input.clientBinding), flow.bindingHash)) {
    throw invalidClientBinding();
  }
  return flow;
}

/** Deletes the flow; a second consumer (replay, race) gets 400 INVALID_STATE. */
export async function consumeFlow(flow: AuthorizationFlow) {
  const consumed = await writeOne(deleteItem(flowKey(flow.stateHash), 'attribute_exists(pk)'));
  if (!consumed.written) throw invalidState();
}

/** Exchanges the code at the token endpoint (client_secret_basic). Returns the raw ID token. */
export async function exchangeCode(
  cfg: OidcProviderConfig,
  code: string,
  redirectUri: string,
  codeVerifier: string | null,
): Promise<string> {
  const secret = await providerClientSecret(cfg.id);
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: cfg.clientId,
  });
  if (codeVerifier) form.set('code_verifier', codeVerifier);
  const basic = Buffer.from(`${encodeURIComponent(cfg.clientId)}:${encodeURIComponent(secret)}`).toString('base64');
  let res: Response;
  try {
    res = await fetch(cfg.tokenEndpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${basic}`,
      },
      body: form.toString(),
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch {
    throw providerError('The identity provider could not be reached');
  }
  const body = (await res.json().catch(() => null)) as { id_token?: unknown; error?: unknown } | null;
  if (res.status === 400 || res.status === 401) {
    throw invalidAuthorizationCode();
  }
  if (!res.ok || typeof body?.id_token !== 'string')
    throw providerError('The identity provider returned an unexpected response');
  return body.id_token;
}

const jwksByUri = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/** One remote JWK set per URI per cold start; jose caches the keys and refetches on an unknown kid. */
function providerJwks(uri: string, { createRemoteJWKSet }: Awaited<ReturnType<typeof loadJose>>) {
  let jwks = jwksByUri.get(uri);
  if (!jwks) {
    jwks = createRemoteJWKSet(new URL(uri), {
      timeoutDuration: FETCH_TIMEOUT_MS,
      cooldownDuration: 30_000,
      cacheMaxAge: 10 * 60_000,
    });
    jwksByUri.set(uri, jwks);
  }
  return jwks;
}

export interface IdTokenClaims extends JWTPayload {
  sub: string;
  nonce: string;
  email?: string;
  email_verified?: boolean | string;
  given_name?: string;
  family_name?: string;
  picture?: string;
}

/** Verifies signature (provider JWKS), issuer, audience (our client id), expiry and algorithm. */
export async function verifyIdToken(cfg: OidcProviderConfig, idToken: string): Promise<IdTokenClaims> {
  const jose = await loadJose();
  const joseErrors = jose.errors;
  try {
    const { payload } = await jose.jwtVerify(idToken, providerJwks(cfg.jwksUri, jose), {
      issuer: cfg.issuer,
      audience: cfg.clientId,
      algorithms: cfg.algorithms,
      requiredClaims: ['sub', 'iat', 'exp', 'nonce'],
      clockTolerance: 30,
    });
    if (typeof payload.nonce !== 'string' || typeof payload.sub !== 'string')
      throw new joseErrors.JWTClaimValidationFailed('nonce', payload);
    return payload as IdTokenClaims;
  } catch (err) {
    if (err instanceof joseErrors.JWKSTimeout || (err instanceof TypeError && /fetch/i.test(err.message))) {
      throw providerError('The identity provider keys could not be fetched');
    }
    if (err instanceof joseErrors.JOSEError) throw invalidIdToken();
    throw err;
  }
}

/** The ID token must carry the nonce the flow was started with. */
export function assertNonce(flow: AuthorizationFlow, claims: IdTokenClaims) {
  if (!sameDigest(sha256(claims.nonce), flow.nonceHash)) throw invalidState();
}

export const emailVerifiedClaim = (claims: IdTokenClaims) =>
  claims.email_verified === true || claims.email_verified === 'true';

export const resetJwksCache = () => jwksByUri.clear();
