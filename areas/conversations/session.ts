import { randomToken, sameDigest, sha256 } from '#shared/auth/opaque.ts';
import type { CredentialResolvers, WidgetSessionRef } from '#shared/runtime/credentials.ts';

/**
 * A widget session token: `ws.{tenantId}.{conversationId}.{secret}`. It names the one conversation it
 * opens (and through it the widget); only the secret's SHA-256 is stored, on the conversation, so
 * the check is the conversation's own GetItem and a leaked table hands out no sessions.
 */
const SESSION_HEADER = 'x-widget-session';
/** Short-lived: long enough for a chat, well past the 30-minute idle close. */
const SESSION_TTL_SECONDS = 2 * 60 * 60;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const TOKEN = new RegExp(`^ws\\.(${UUID})\\.(${UUID})\\.([A-Za-z0-9_-]{43})$`);

export type SessionClaim = WidgetSessionRef;

export function newSession(tenantId: string, conversationId: string, now = Date.now()) {
  const secret = randomToken();
  return {
    token: `ws.${tenantId}.${conversationId}.${secret}`,
    hash: sha256(secret),
    expiresAt: new Date(now + SESSION_TTL_SECONDS * 1000).toISOString(),
  };
}

/** The token's parts, or null when it is not one (the check against the conversation comes after). */
function parseSession(token: string | undefined): SessionClaim | null {
  const m = token ? TOKEN.exec(token) : null;
  return m ? { tenantId: m[1]!, conversationId: m[2]!, secret: m[3]! } : null;
}

/** The stored hash matches and the session has not expired. */
export const sessionHolds = (
  claim: SessionClaim,
  stored: { sessionHash: string | null; sessionExpiresAt: string | null },
  now = Date.now(),
) =>
  !!stored.sessionHash &&
  !!stored.sessionExpiresAt &&
  Date.parse(stored.sessionExpiresAt) > now &&
  sameDigest(sha256(claim.secret), stored.sessionHash);

/** The widget session credential the runtime resolves on `widgetSession` routes (the conversations function gives it). */
export const widgetSessionCredential: CredentialResolvers['widgetSession'] = {
  read: (header) => parseSession(header(SESSION_HEADER)),
};
