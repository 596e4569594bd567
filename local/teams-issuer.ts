import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { BOT_CONNECTOR_ISSUER } from '#areas/channels/bot-connector-auth.ts';
import { reply, type RawReply } from '#shared/http/responses.ts';

/**
 * The Bot Connector's token issuer, stood in: an RS256 key made once per process, served as the
 * OpenID metadata and JWKS a bot fetches (`/_local/channels/teams/openid`, `.../keys`), and tokens
 * signed with it as the Bot Connector signs the activities it posts (issuer, audience = the app id,
 * `serviceUrl`, five minutes' lifetime). The key is endorsed for `msteams`, as Microsoft's are.
 */
const ENDORSEMENTS = ['msteams'];
let pending: Promise<{ kid: string; privateKey: CryptoKey; publicJwk: JWK }> | null = null;

function signingKey() {
  pending ??= (async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    const kid = `local-${crypto.randomUUID()}`;
    return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
  })();
  return pending;
}

const json = (value: unknown) =>
  reply.raw('application/json', JSON.stringify(value), { headers: { 'cache-control': 'no-store' } });

/** The OpenID metadata, its jwks_uri on the server that was asked (the stand-in has no fixed address). */
export function openIdMetadata(host: string | undefined): RawReply {
  const base = `http://${host ?? '127.0.0.1'}/_local/channels/teams`;
  return json({
    issuer: BOT_CONNECTOR_ISSUER,
    authorization_endpoint: `${base}/login`,
    jwks_uri: `${base}/keys`,
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['private_key_jwt'],
  });
}

export async function botConnectorKeys(): Promise<RawReply> {
  const { publicJwk } = await signingKey();
  return json({ keys: [{ ...publicJwk, endorsements: ENDORSEMENTS }] });
}

export interface BotTokenClaims {
  appId: string;
  serviceUrl: string;
  /** Overrides for the refusals' tests: another issuer, a lifetime already over, a kid the keys lack. */
  issuer?: string;
  expiresInSeconds?: number;
  kid?: string;
}

/** A token as the Bot Connector puts in `Authorization: Bearer` on an activity it posts to the bot. */
export async function issueBotConnectorToken(claims: BotTokenClaims): Promise<string> {
  const { kid, privateKey } = await signingKey();
  const now = Math.floor(Date.now() / 1000);
  const exp = now + (claims.expiresInSeconds ?? 300);
  return new SignJWT({ serviceUrl: claims.serviceUrl })
    .setProtectedHeader({ alg: 'RS256', kid: claims.kid ?? kid, typ: 'JWT' })
    .setIssuer(claims.issuer ?? BOT_CONNECTOR_ISSUER)
    .setAudience(claims.appId)
    .setIssuedAt(Math.min(now, exp - 60))
    .setNotBefore(Math.min(now, exp - 60))
    .setExpirationTime(exp)
    .sign(privateKey);
}

/** `POST /_local/channels/teams/activity-token` {appId, serviceUrl}: a token to post an activity with locally. */
export async function activityToken(body: { appId: string; serviceUrl: string }): Promise<RawReply> {
  return json({ token: await issueBotConnectorToken(body) });
}
