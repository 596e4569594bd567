import type { JWK } from 'jose';
import { loadJose } from '#shared/auth/signing-keys.ts';
import { logger } from '#shared/runtime/logger.ts';
import { endpoint } from './senders/endpoints.ts';

/**
 * The Bot Connector's authentication of the activities it posts to a bot (Microsoft's "Authenticate
 * requests from the Bot Connector service to your bot"): `Authorization: Bearer <JWT>` signed RS256
 * by a key of the OpenID metadata's jwks_uri, issuer `https://api.botframework.com`, audience the
 * bot's app id, within its lifetime (five minutes' clock skew), a `serviceUrl` claim equal to the
 * activity's, and, when the key lists endorsements, the activity's `channelId` among them. The JWT
 * signs none of the body: a body changed in transit under a valid token passes, unless it changes
 * the serviceUrl (the claim then differs).
 */
export const BOT_CONNECTOR_ISSUER = 'https://api.botframework.com';
const CLOCK_SKEW_SECONDS = 5 * 60;
/** Microsoft rolls its keys rarely and documents a daily refresh. */
const KEYS_TTL_MS = 24 * 3600_000;
/** A token naming a kid we lack refetches, at most this often (a forged kid cannot make us hammer the metadata). */
const REFETCH_AFTER_MS = 5 * 60_000;
const FETCH_TIMEOUT_MS = 5_000;

type EndorsedKey = JWK & { endorsements?: string[] };
let cached: { keys: EndorsedKey[]; fetchedAt: number; source: string } | null = null;

async function fetchJson(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return (await res.json()) as Record<string, unknown>;
}

async function signingKeys(source: string): Promise<EndorsedKey[]> {
  const metadata = await fetchJson(source);
  if (typeof metadata.jwks_uri !== 'string') throw new Error('no jwks_uri in the OpenID metadata');
  const set = await fetchJson(metadata.jwks_uri);
  if (!Array.isArray(set.keys)) throw new Error('no keys at the jwks_uri');
  return set.keys as EndorsedKey[];
}

/** The keys, cached per process; refetched when stale, or when a token names a kid not among them. */
async function keysFor(kid: string | undefined): Promise<EndorsedKey[]> {
  const source = endpoint('teamsOpenId')!;
  const now = Date.now();
  const fresh = cached && cached.source === source && now - cached.fetchedAt < KEYS_TTL_MS;
  const known = fresh && cached!.keys.some((k) => k.kid === kid);
  if (known || (fresh && now - cached!.fetchedAt < REFETCH_AFTER_MS)) return cached!.keys;
  try {
    cached = { keys: await signingKeys(source), fetchedAt: now, source };
  } catch (err) {
    // Microsoft's metadata unreachable: the keys we had still verify; without any, nothing does.
    logger.warn('bot connector keys not fetched', { reason: (err as Error).message });
    if (!cached || cached.source !== source) return [];
  }
  return cached.keys;
}

export interface BotActivityReference {
  serviceUrl?: string;
  channelId?: string;
}

/** Whether the request carries a valid Bot Connector token for this bot and this activity. Never throws. */
export async function verifyBotConnector(
  authorization: string | undefined,
  appId: string,
  activity: BotActivityReference,
): Promise<boolean> {
  const token = /^Bearer ([A-Za-z0-9_\-.]+)$/.exec(authorization ?? '')?.[1];
  if (!token || !appId) return false;
  try {
    const { createLocalJWKSet, decodeProtectedHeader, jwtVerify } = await loadJose();
    const { kid } = decodeProtectedHeader(token);
    const keys = await keysFor(kid);
    const key = keys.find((k) => k.kid === kid);
    if (!key) return false;
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: [key] }), {
      issuer: BOT_CONNECTOR_ISSUER,
      audience: appId,
      algorithms: ['RS256'],
      clockTolerance: CLOCK_SKEW_SECONDS,
      requiredClaims: ['exp'],
    });
    if (typeof payload.serviceUrl !== 'string' || payload.serviceUrl !== activity.serviceUrl) return false;
    if (Array.isArray(key.endorsements) && !key.endorsements.includes(activity.channelId ?? '')) return false;
    return true;
  } catch {
    return false;
  }
}

/** Forgets the cached keys (tests). */
export const forgetBotConnectorKeys = () => {
  cached = null;
};
