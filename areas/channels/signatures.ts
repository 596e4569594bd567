import { createHmac, createPublicKey, timingSafeEqual, verify, type KeyObject } from 'node:crypto';

/**
 * Each chat platform's own inbound signature scheme, checked over the raw body exactly as received
 * (a parsed and re-serialised body would not match). Each answers true or false and never throws:
 * a missing header, a malformed or wrong-length signature and a bad key are all just `false`.
 * Comparisons of MACs are constant-time (timingSafeEqual, after a length check, since it throws on
 * unequal lengths); Discord's is an Ed25519 verification, constant-time in node:crypto.
 */
export type RawBody = string | Uint8Array;
/** Request headers; names are matched case-insensitively (API Gateway lowercases them, platforms do not). */
export type InboundHeaders = Record<string, string | undefined>;

/**
 * A signed timestamp (Slack's, Discord's) more than five minutes from now, either way, is refused:
 * a captured request replays only within that window, which the event claims outlive.
 */
const SIGNED_TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

const nowInSeconds = () => Math.floor(Date.now() / 1000);
const fresh = (timestamp: string, nowSeconds: number) =>
  /^\d{1,12}$/.test(timestamp) && Math.abs(nowSeconds - Number(timestamp)) <= SIGNED_TIMESTAMP_TOLERANCE_SECONDS;

const bytes = (body: RawBody) => (typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body));

function header(headers: InboundHeaders, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === wanted && v !== undefined) return v;
  return undefined;
}

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

const hmac = (key: string | Buffer, ...parts: (string | Buffer)[]) => {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest();
};

const HEX_256 = /^[0-9a-f]{64}$/i;
const BASE64_256 = /^[A-Za-z0-9+/]{43}=$/;

/**
 * Slack: `X-Slack-Signature: v0=<hex HMAC-SHA256(signingSecret, "v0:{timestamp}:{body}")>` and
 * `X-Slack-Request-Timestamp` (unix seconds), refused outside five minutes of `nowSeconds`.
 */
export function verifySlack(
  rawBody: RawBody,
  headers: InboundHeaders,
  signingSecret: string,
  nowSeconds = nowInSeconds(),
): boolean {
  const timestamp = header(headers, 'x-slack-request-timestamp') ?? '';
  const signature = header(headers, 'x-slack-signature') ?? '';
  if (!signingSecret || !fresh(timestamp, nowSeconds)) return false;
  if (!signature.startsWith('v0=') || !HEX_256.test(signature.slice(3))) return false;
  const expected = hmac(signingSecret, `v0:${timestamp}:`, bytes(rawBody));
  return sameBytes(Buffer.from(signature.slice(3), 'hex'), expected);
}

/**
 * Teams outgoing webhook: `Authorization: HMAC <base64 HMAC-SHA256(base64-decoded security token, body)>`.
 * The security token is the base64 string Teams shows once when the webhook is created.
 */
export function verifyTeams(rawBody: RawBody, headers: InboundHeaders, securityToken: string): boolean {
  const auth = header(headers, 'authorization') ?? '';
  const m = /^HMAC (\S+)$/.exec(auth);
  if (!m || !BASE64_256.test(m[1]!)) return false;
  const key = Buffer.from(securityToken, 'base64');
  if (!key.length) return false;
  return sameBytes(Buffer.from(m[1]!, 'base64'), hmac(key, bytes(rawBody)));
}

/** WhatsApp Cloud API (Meta): `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(appSecret, body)>`. */
export function verifyWhatsApp(rawBody: RawBody, headers: InboundHeaders, appSecret: string): boolean {
  const signature = header(headers, 'x-hub-signature-256') ?? '';
  if (!appSecret || !signature.startsWith('sha256=') || !HEX_256.test(signature.slice(7))) return false;
  return sameBytes(Buffer.from(signature.slice(7), 'hex'), hmac(appSecret, bytes(rawBody)));
}

/**
 * Telegram: the `secret_token` given to setWebhook comes back in `X-Telegram-Bot-Api-Secret-Token`
 * (1-256 of A-Z a-z 0-9 _ -). No body signature and no timestamp: replays are stopped by update_id.
 */
export function verifyTelegram(_rawBody: RawBody, headers: InboundHeaders, secretToken: string): boolean {
  const given = header(headers, 'x-telegram-bot-api-secret-token') ?? '';
  if (!secretToken || !given) return false;
  // Compared as digests so the comparison is constant-time whatever the lengths.
  return sameBytes(hmac('telegram', given), hmac('telegram', secretToken));
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** A 32-byte raw Ed25519 public key (hex, as the Discord developer portal shows it), or null. */
function ed25519PublicKey(publicKeyHex: string): KeyObject | null {
  if (!HEX_256.test(publicKeyHex)) return null;
  try {
    return createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(publicKeyHex, 'hex')]),
      format: 'der',
      type: 'spki',
    });
  } catch {
    return null;
  }
}

/** Ed25519 verification of `message` (RFC 8032), false on any malformed input. */
export function verifyEd25519(publicKeyHex: string, message: Buffer, signatureHex: string): boolean {
  if (!/^[0-9a-f]{128}$/i.test(signatureHex)) return false;
  const key = ed25519PublicKey(publicKeyHex);
  if (!key) return false;
  try {
    return verify(null, message, key, Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
}

/**
 * Discord interactions: `X-Signature-Ed25519: <hex signature>` over `X-Signature-Timestamp` (unix
 * seconds) + body, with the application's public key. Discord documents no freshness window, but the
 * timestamp is signed and Discord never resends an interaction, so a signature more than five minutes
 * from `nowSeconds` is a replay: without the window, one captured request would verify forever.
 */
export function verifyDiscord(
  rawBody: RawBody,
  headers: InboundHeaders,
  publicKeyHex: string,
  nowSeconds = nowInSeconds(),
): boolean {
  const signature = header(headers, 'x-signature-ed25519') ?? '';
  const timestamp = header(headers, 'x-signature-timestamp') ?? '';
  if (!fresh(timestamp, nowSeconds)) return false;
  return verifyEd25519(publicKeyHex, Buffer.concat([Buffer.from(timestamp, 'utf8'), bytes(rawBody)]), signature);
}
