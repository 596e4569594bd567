import { ignored, isoSeconds, jsonObject, obj, str, type InboundEvent } from './event.ts';

/**
 * A Bot Framework activity from a Teams outgoing webhook. Only `message` activities are turns; the
 * `<at>Bot</at>` mention that triggers an outgoing webhook is removed from the text, and Teams'
 * HTML (`<p>`, `&nbsp;`) reduced to plain text.
 */
export function parseTeams(rawBody: string): InboundEvent | null {
  const activity = jsonObject(rawBody);
  if (!activity) return null;
  const eventId = str(activity.id) ?? null;
  if (activity.type !== 'message') return ignored(eventId);
  const from = obj(activity.from);
  const conversation = obj(activity.conversation);
  // The bot's own activity sent back (from is the recipient, or Teams marks the sender a bot).
  if (from.role === 'bot' || (str(from.id) && str(from.id) === str(obj(activity.recipient).id)))
    return ignored(eventId);
  const sender = str(from.aadObjectId) ?? str(from.id);
  const recipient = str(conversation.id);
  const text = plainText(typeof activity.text === 'string' ? activity.text : '');
  if (!sender || !recipient || !text) return ignored(eventId);
  const serviceUrl = str(activity.serviceUrl);
  const sentAt = isoSeconds(activity.timestamp);
  return {
    kind: 'message',
    eventId,
    ...(eventId ? { messageId: `${recipient}:${eventId}` } : {}),
    sender,
    ...(str(from.name) ? { senderName: str(from.name) } : {}),
    text,
    replyTo: { recipient, ...(eventId ? { threadId: eventId } : {}), ...(serviceUrl ? { serviceUrl } : {}) },
    ...(sentAt !== undefined ? { sentAt } : {}),
  };
}

const ENTITIES: Record<string, string> = { nbsp: ' ', amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

function plainText(html: string): string {
  return html
    .replace(/<at>[^<]*<\/at>/gi, '')
    .replace(/<br\s*\/?>|<\/p>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&(nbsp|amp|lt|gt|quot|#39);/g, (_, e: string) => ENTITIES[e]!)
    .replace(/[ \t]+/g, ' ')
    .trim();
}
