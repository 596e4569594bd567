import { keys, outsideIdKeyPart, type Key } from '#shared/data/keys.ts';

/**
 * The channels area's records (docs/decisions/channels.md):
 * - a connection `{t}#CHANNEL` / channelId, listed newest first on gsi1, with a platform lookup item
 *   (`{PLATFORM}#UNIQUE#CHANNEL` / channelId) written in the same transaction, so an inbound webhook,
 *   which knows only the channel id, finds the tenant without a Scan;
 * - a channel user's last inbound message `{t}#CHANNEL#{channelId}#INBOUND` / user, the start of
 *   WhatsApp's 24-hour window for free-form messages;
 * - a message we sent, by the platform's id of it (`{t}#CHANNEL#{channelId}#SENT` / id): where its
 *   receipts go. The platform's ids in keys go through `outsideIdKeyPart` (a digest when long or unusual).
 */
export const channelKey = (tenantId: string, id: string): Key => keys.tenantItem(tenantId, 'CHANNEL', id);
export const channelList = (tenantId: string) => keys.tenantCollection(tenantId, 'CHANNEL');
export const channelLookup = (channelId: string): Key => keys.unique('CHANNEL', channelId);

export const lastInboundKey = (tenantId: string, channelId: string, user: string): Key =>
  keys.childItem(tenantId, 'CHANNEL', channelId, 'INBOUND', outsideIdKeyPart(user));

/** Kept 30 days; Meta's receipts come within days. */
export const sentMessageKey = (tenantId: string, channelId: string, platformMessageId: string): Key =>
  keys.childItem(tenantId, 'CHANNEL', channelId, 'SENT', outsideIdKeyPart(platformMessageId));
/** What a sent message was: a proactive message or a conversation's message. */
export type SentMessagePointer =
  | { kind: 'proactive'; messageId: string }
  | { kind: 'conversation'; conversationId: string; messageId: string };

/** A stored item without its key and index attributes (what a lookup hands to another area). */
export function withoutKeys<T>(item: T & Record<string, unknown>): T {
  const { pk: _pk, sk: _sk, gsi1pk: _gp, gsi1sk: _gs, ...rest } = item;
  return rest as T;
}
