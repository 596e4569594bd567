import { createHash } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { SignJWT, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import {
  isAllowedRedirect,
  providerClientSecret,
  providerConfig,
  type ProviderId,
} from '#areas/identity/identity-providers.ts';
import { epochSeconds, randomToken, sha256 } from '#shared/auth/opaque.ts';
import type { Key } from '#shared/data/keys.ts';
import { reply, type RawReply } from '#shared/http/responses.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { parameterStore } from '#shared/platform/ports.ts';

/**
 * Two local OpenID Connect providers standing in for identity providers A and B, so the external
 * sign-in flow runs offline: authorization endpoint (auto-consent for a `login_hint`), token endpoint
 * (client secret, single-use codes, PKCE S256) and JWKS. A signs ID tokens with RS256, B with ES256;
 * each key lives in the parameter store like any other secret.
 */
export type Idp = 'a' | 'b';

const providerOf = (idp: Idp): ProviderId => (idp === 'a' ? 'identity-provider-a' : 'identity-provider-b');
const ALG: Record<Idp, 'RS256' | 'ES256'> = { a: 'RS256', b: 'ES256' };
const CODE_TTL_SECONDS = 5 * 60;
const ID_TOKEN_TTL_SECONDS = 5 * 60;

/** An issued authorization code, by its SHA-256 (local stand-in only, never deployed). */
const codeKey = (idp: Idp, codeHash: string): Key => ({ pk: `LOCALIDP#${idp}#CODE#${codeHash}`, sk: 'ITEM' });

const keyCache = new Map<string, Promise<{ kid: string; privateKey: CryptoKey; publicJwk: JWK }>>();

function signingKey(idp: Idp) {
  const name = `${config.paramPrefix}/local-idp/${idp}/signing-key`;
  let pending = keyCache.get(name);
  if (!pending) {
    pending = (async () => {
      const store = await parameterStore();
      let stored = await store.get(name);
      if (!stored) {
        const { publicKey, privateKey } = await generateKeyPair(ALG[idp], { extractable: true });
        const kid = crypto.randomUUID();
        const value = JSON.stringify({
          privateJwk: { ...(await exportJWK(privateKey)), kid, alg: ALG[idp] },
          publicJwk: { ...(await exportJWK(publicKey)), kid, alg: ALG[idp], use: 'sig' },
        });
        try {
          await store.put(name, value, { secure: true, overwrite: false });
        } catch (err) {
          if ((err as { name?: string }).name !== 'ParameterAlreadyExists') throw err;
        }
        stored = await store.get(name);
      }
      const { privateJwk, publicJwk } = JSON.parse(stored!.value) as { privateJwk: JWK; publicJwk: JWK };
      return { kid: publicJwk.kid!, privateKey: (await importJWK(privateJwk, ALG[idp])) as CryptoKey, publicJwk };
    })();
    pending.catch(() => keyCache.delete(name));
    keyCache.set(name, pending);
  }
  return pending;
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  reply.raw('application/json', JSON.stringify(body), { status, headers: { 'cache-control': 'no-store', ...headers } });
const oauthError = (error: string, description: string, status = 400) =>
  json({ error, error_description: description }, status);
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string, status = 200) =>
  reply.raw(
    'text/html; charset=utf-8',
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`,
    {
      status,
    },
  );

export async function discovery(idp: Idp): Promise<RawReply> {
  const cfg = providerConfig(providerOf(idp));
  return json({
    issuer: cfg.issuer,
    authorization_endpoint: `${cfg.issuer}/authorize`,
    token_endpoint: `${cfg.issuer}/token`,
    jwks_uri: `${cfg.issuer}/jwks.json`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [ALG[idp]],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: ['openid', 'email', 'profile'],
  });
}

export async function jwks(idp: Idp): Promise<RawReply> {
  const { publicJwk } = await signingKey(idp);
  return json({ keys: [publicJwk] }, 200, { 'cache-control': 'public, max-age=60' });
}

export interface AuthorizeQuery {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  nonce?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  login_hint?: string;
  email_verified?: string;
  given_name?: string;
  family_name?: string;
  sub?: string;
}

interface StoredCode {
  clientId: string;
  redirectUri: string;
  nonce: string | null;
  codeChallenge: string | null;
  sub: string;
  email: string;
  emailVerified: boolean;
  givenName: string;
  familyName: string;
  expiresAt: number;
}

/** Stable subject per provider and e-mail, unless the test names one. */
const subjectFor = (idp: Idp, email: string) => `${idp}-${sha256(`${idp}:${email}`).slice(0, 24)}`;

export async function authorize(idp: Idp, query: AuthorizeQuery): Promise<RawReply> {
  const cfg = providerConfig(providerOf(idp));
  // Errors about the client or redirect URI are shown, never redirected (RFC 6749 4.1.2.1).
  if (query.client_id !== cfg.clientId) return page('Error', '<p>Unknown client_id.</p>', 400);
  if (!query.redirect_uri || !isAllowedRedirect(query.redirect_uri))
    return page('Error', '<p>redirect_uri is not registered.</p>', 400);
  const back = new URL(query.redirect_uri);
  if (query.state) back.searchParams.set('state', query.state);
  const fail = (error: string) => {
    back.searchParams.set('error', error);
    return reply.raw('text/plain', '', { status: 302, headers: { location: back.toString() } });
  };
  if (query.response_type !== 'code') return fail('unsupported_response_type');
  if (!(query.scope ?? '').split(' ').includes('openid')) return fail('invalid_scope');
  if (query.code_challenge && query.code_challenge_method !== 'S256') return fail('invalid_request');

  if (!query.login_hint) return signInForm(query);
  const email = query.login_hint.trim().toLowerCase();
  const code = randomToken();
  const stored: StoredCode = {
    clientId: cfg.clientId,
    redirectUri: query.redirect_uri,
    nonce: query.nonce ?? null,
    codeChallenge: query.code_challenge ?? null,
    sub: query.sub || subjectFor(idp, email),
    email,
    emailVerified: query.email_verified !== 'false',
    givenName: query.given_name ?? 'Test',
    familyName: query.family_name ?? `User ${idp.toUpperCase()}`,
    expiresAt: epochSeconds() + CODE_TTL_SECONDS,
  };
  await ddb().send(
    new PutCommand({
      TableName: config.tableName,
      Item: { ...codeKey(idp, sha256(code)), ...stored, ttl: stored.expiresAt },
    }),
  );
  back.searchParams.set('code', code);
  return reply.raw('text/plain', '', {
    status: 302,
    headers: { location: back.toString(), 'cache-control': 'no-store' },
  });
}

/** The "sign-in page": any e-mail is accepted; submitting consents and redirects back. */
function signInForm(query: AuthorizeQuery): RawReply {
  const hidden = Object.entries(query)
    .filter(([k, v]) => v !== undefined && !['login_hint', 'email_verified', 'given_name', 'family_name'].includes(k))
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(String(v))}">`)
    .join('');
  return page(
    'Local identity provider',
    `<h1>Local identity provider</h1><form method="get">${hidden}
<p><label>E-mail <input name="login_hint" type="email" required></label></p>
<p><label>First name <input name="given_name" value="Test"></label> <label>Last name <input name="family_name" value="User"></label></p>
<p><label>E-mail <select name="email_verified"><option value="true">verified</option><option value="false">not verified</option></select></label></p>
<p><button type="submit">Sign in and allow</button></p></form>`,
  );
}

function formFields(rawBody: string | undefined, isBase64: boolean, contentType: string): Record<string, string> {
  const text = rawBody === undefined ? '' : isBase64 ? Buffer.from(rawBody, 'base64').toString('utf8') : rawBody;
  if (contentType.includes('application/json')) {
    try {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

function clientCredentials(headers: Record<string, string | undefined>, fields: Record<string, string>) {
  const basic = /^Basic (.+)$/i.exec(headers.authorization ?? '');
  if (basic) {
    const [id = '', secret = ''] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
    return { id: decodeURIComponent(id), secret: decodeURIComponent(secret) };
  }
  return { id: fields.client_id ?? '', secret: fields.client_secret ?? '' };
}

const pkceOk = (verifier: string | undefined, challenge: string | null) => {
  if (!challenge) return verifier === undefined; // a verifier without a challenge is a downgrade attempt
  return !!verifier && createHash('sha256').update(verifier).digest('base64url') === challenge;
};

export async function token(
  idp: Idp,
  req: { rawBody: string | undefined; isBase64Encoded: boolean; headers: Record<string, string | undefined> },
): Promise<RawReply> {
  const cfg = providerConfig(providerOf(idp));
  const fields = formFields(req.rawBody, req.isBase64Encoded, req.headers['content-type'] ?? '');
  const client = clientCredentials(req.headers, fields);
  if (client.id !== cfg.clientId || client.secret !== (await providerClientSecret(providerOf(idp)))) {
    return oauthError('invalid_client', 'Client authentication failed', 401);
  }
  if (fields.grant_type !== 'authorization_code')
    return oauthError('unsupported_grant_type', 'Only authorization_code is supported');
  if (!fields.code) return oauthError('invalid_request', 'code is required');
  // Single use: the code is deleted as it is read.
  const out = await ddb().send(
    new DeleteCommand({
      TableName: config.tableName,
      Key: codeKey(idp, sha256(fields.code)),
      ReturnValues: 'ALL_OLD',
    }),
  );
  const stored = out.Attributes as StoredCode | undefined;
  if (!stored || stored.expiresAt <= epochSeconds())
    return oauthError('invalid_grant', 'Unknown, used or expired code');
  if (stored.clientId !== client.id || stored.redirectUri !== fields.redirect_uri)
    return oauthError('invalid_grant', 'redirect_uri or client does not match');
  if (!pkceOk(fields.code_verifier, stored.codeChallenge))
    return oauthError('invalid_grant', 'PKCE verification failed');

  const { kid, privateKey } = await signingKey(idp);
  const idToken = await new SignJWT({
    ...(stored.nonce ? { nonce: stored.nonce } : {}),
    email: stored.email,
    email_verified: stored.emailVerified,
    given_name: stored.givenName,
    family_name: stored.familyName,
  })
    .setProtectedHeader({ alg: ALG[idp], kid, typ: 'JWT' })
    .setIssuer(cfg.issuer)
    .setAudience(cfg.clientId)
    .setSubject(stored.sub)
    .setIssuedAt()
    .setExpirationTime(`${ID_TOKEN_TTL_SECONDS}s`)
    .sign(privateKey);
  return json({
    access_token: randomToken(),
    token_type: 'Bearer',
    expires_in: ID_TOKEN_TTL_SECONDS,
    id_token: idToken,
    scope: 'openid email profile',
  });
}

export function callbackPage(query: { code?: string; state?: string; error?: string }): RawReply {
  if (query.error) return page('Sign-in failed', `<p>The provider answered: ${escapeHtml(query.error)}</p>`);
  return page(
    'Signed in at the provider',
    `<p>Post these to the provider's callback route with the same redirectUri:</p><dl><dt>code</dt><dd><code>${escapeHtml(query.code ?? '')}</code></dd><dt>state</dt><dd><code>${escapeHtml(query.state ?? '')}</code></dd></dl>`,
  );
}
