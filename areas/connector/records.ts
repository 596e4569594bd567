import { keys, outsideIdKeyPart, PLATFORM, type Key } from '#shared/data/keys.ts';

/**
 * The connector's records (docs/architecture.md, "Connector"):
 * - an inbound event's claim `{t}#CHANNEL#{channelId}#EVENT` / the platform's event id, written by the
 *   webhook before it queues the turn, so a provider's retry of the same event is answered 200 and
 *   queued no second time; it expires (TTL) after the providers stop retrying;
 * - a channel user's last inbound message `{t}#CHANNEL#{channelId}#INBOUND` / user, the start of
 *   WhatsApp's 24-hour window for free-form messages (the platform's ids in both keys go through
 *   `outsideIdKeyPart`: a digest when long or unusual);
 * - a proactive message `{t}#PROACTIVE_MESSAGE` / id, listed newest first on gsi1; while Scheduled it
 *   also sits on gsi2 `PLATFORM#PROACTIVE_DUE` by its send time, so the scheduler's minute finds the
 *   due ones with one Query and no Scan.
 */
export const inboundClaimKey = (tenantId: string, channelId: string, eventIdPart: string): Key =>
  keys.childItem(tenantId, 'CHANNEL', channelId, 'EVENT', eventIdPart);
/**
 * The message itself, claimed beside its event (Slack may send one message under several event ids).
 * Both claims take the platform's id as `outsideIdKeyPart` gives it, the form the queued turn carries.
 */
export const messageClaimKey = (tenantId: string, channelId: string, messageIdPart: string): Key =>
  keys.childItem(tenantId, 'CHANNEL', channelId, 'MESSAGE', messageIdPart);
/**
 * A Teams bot's conversation reference, learnt from an inbound activity: by the user for a personal
 * chat, by the conversation id for a group chat or channel (what a proactive message's recipient names).
 */
export const teamsReferenceKey = (tenantId: string, channelId: string, address: string): Key =>
  keys.childItem(tenantId, 'CHANNEL', channelId, 'TEAMS_REFERENCE', outsideIdKeyPart(address));

export const proactiveKey = (tenantId: string, id: string): Key => keys.tenantItem(tenantId, 'PROACTIVE_MESSAGE', id);
export const proactiveList = (tenantId: string) => keys.tenantCollection(tenantId, 'PROACTIVE_MESSAGE');
export const proactiveListEntry = (m: { tenantId: string; id: string; createdAt: string }) =>
  keys.newestFirst(proactiveList(m.tenantId), m.createdAt, m.id);

const DUE = `${PLATFORM}#PROACTIVE_DUE`;
export const dueEntry = (scheduledAt: string, m: { tenantId: string; id: string }) => ({
  gsi2pk: DUE,
  gsi2sk: `${scheduledAt}#${m.tenantId}#${m.id}`,
});
export const dueIndex = { pk: DUE };

export const PROACTIVE_STATUSES = ['Scheduled', 'Queued', 'Sent', 'Failed', 'Cancelled'] as const;
export type ProactiveStatus = (typeof PROACTIVE_STATUSES)[number];

/**
 * A WhatsApp message template the tenant registered for a connection: `{t}#CHANNEL#{channelId}#TEMPLATE`
 * / id, listed newest first on gsi1 under the same partition, with a counter; its name and language
 * are unique per connection (`{t}#UNIQUE#WA_TEMPLATE#{channelId}:{name}:{language}`, which also holds
 * what a proactive message is checked against, so the check is one GetItem).
 */
export const templateList = (tenantId: string, channelId: string) =>
  keys.childCollection(tenantId, 'CHANNEL', channelId, 'TEMPLATE');
export const templateKey = (tenantId: string, channelId: string, id: string): Key => ({
  pk: templateList(tenantId, channelId),
  sk: id,
});
export const templateNameKey = (tenantId: string, channelId: string, name: string, language: string): Key =>
  keys.unique('WA_TEMPLATE', `${channelId}:${name}:${language}`, tenantId);

/**
 * What the platform reports of a message after it was sent (WhatsApp status callbacks; Telegram and
 * Slack report nothing after the send, so theirs stays Sent). Only ever moves forward, except to Failed.
 */
export const DELIVERY_STATUSES = ['Sent', 'Delivered', 'Read', 'Failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
