import { config } from '#shared/platform/config.ts';
import { parameterStore } from '#shared/platform/ports.ts';
import { randomToken } from '#shared/auth/opaque.ts';

const PROVIDER_IDS = ['identity-provider-a', 'identity-provider-b'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** The letter used in environment names (`IDP_A_*`) and local provider paths (`/_local/idp/a`). */
const providerLetter = (id: ProviderId) => (id === 'identity-provider-a' ? 'a' : 'b');

export interface OidcProviderConfig {
  id: ProviderId;
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  clientId: string;
  scope: string;
  /** Send a PKCE S256 challenge (on unless a provider cannot take it: `IDP_X_PKCE=false`). */
  pkce: boolean;
  algorithms: string[];
  clientSecretParam: string;
}

/**
 * Per-provider OpenID Connect settings from the environment (`IDP_A_ISSUER`, `IDP_A_AUTHORIZATION_URL`,
 * `IDP_A_TOKEN_URL`, `IDP_A_JWKS_URL`, `IDP_A_CLIENT_ID`, `IDP_A_SCOPE`, `IDP_A_PKCE`, `IDP_A_ALGORITHMS`,
 * likewise `IDP_B_*`). Defaults point at the local stand-in providers on the public base URL.
 */
export function providerConfig(id: ProviderId): OidcProviderConfig {
  const letter = providerLetter(id);
  const env = (name: string, fallback: string) => process.env[`IDP_${letter.toUpperCase()}_${name}`] || fallback;
  const issuer = env('ISSUER', `${config.publicBaseUrl}/_local/idp/${letter}`);
  const pkce = env('PKCE', 'true') !== 'false';
  return {
    id,
    issuer,
    authorizationEndpoint: env('AUTHORIZATION_URL', `${issuer}/authorize`),
    tokenEndpoint: env('TOKEN_URL', `${issuer}/token`),
    jwksUri: env('JWKS_URL', `${issuer}/jwks.json`),
    clientId: env('CLIENT_ID', `saas-${config.stage}-${letter}`),
    scope: env('SCOPE', 'openid email profile'),
    pkce,
    algorithms: env('ALGORITHMS', 'RS256,ES256,EdDSA')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean),
    clientSecretParam: `${config.paramPrefix}/providers/${id}/client-secret`,
  };
}

/**
 * Redirect URIs a client may use (exact match), from `OAUTH_REDIRECT_ALLOWLIST` (comma list). Only
 * the local stage has defaults; a deployed stage without the list allows none (external sign-in off).
 */
export function redirectAllowList(): string[] {
  const fromEnv = process.env.OAUTH_REDIRECT_ALLOWLIST;
  if (!fromEnv && config.stage !== 'local') return [];
  const list = fromEnv
    ? fromEnv.split(',')
    : [
        'http://localhost:5173/auth/callback',
        'http://127.0.0.1:5173/auth/callback',
        `${config.publicBaseUrl}/_local/oauth/callback`,
      ];
  return list.map((u) => u.trim()).filter(Boolean);
}

export const isAllowedRedirect = (uri: string) => redirectAllowList().includes(uri);

const secrets = new Map<string, Promise<string>>();

/**
 * The OAuth client secret, a SecureString at `<prefix>/providers/<provider>/client-secret`, read once
 * per cold start. In the local stage a missing secret is generated and stored, so the local stand-in
 * provider (which reads the same parameter) and the client agree without any setup.
 */
export function providerClientSecret(id: ProviderId): Promise<string> {
  const name = providerConfig(id).clientSecretParam;
  let pending = secrets.get(name);
  if (!pending) {
    pending = (async () => {
      const store = await parameterStore();
      const stored = await store.get(name, { decrypt: true });
      if (stored) return stored.value;
      if (config.stage !== 'local') throw new Error(`OAuth client secret ${name} is not configured`);
      try {
        await store.put(name, randomToken(), { secure: true, overwrite: false });
      } catch (err) {
        if ((err as { name?: string }).name !== 'ParameterAlreadyExists') throw err;
      }
      const created = await store.get(name, { decrypt: true });
      if (!created) throw new Error(`OAuth client secret ${name} could not be created`);
      return created.value;
    })();
    pending.catch(() => secrets.delete(name));
    secrets.set(name, pending);
  }
  return pending;
}

export const resetProviderSecretCache = () => secrets.clear();
