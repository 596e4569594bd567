import { id, ignored, jsonObject, obj, str, type InboundEvent } from './event.ts';

/**
 * Slack Events API body: `url_verification` (answered with its challenge) or `event_callback`
 * carrying a `message` (direct message or channel the bot is in) or an `app_mention`. Messages
 * with a subtype (edits, joins) or from a bot (our own answers echo back) are ignored, or the
 * agent would answer itself. Null when the body is not a JSON object.
 */
export function parseSlack(rawBody: string): InboundEvent | null {
  const body = jsonObject(rawBody);
  if (!body) return null;
  if (body.type === 'url_verification') {
    const challenge = str(body.challenge);
    return challenge ? { kind: 'challenge', eventId: null, sender: null, text: '', challenge } : null;
  }
  const eventId = str(body.event_id) ?? null;
  if (body.type !== 'event_callback') return ignored(eventId);
  const event = obj(body.event);
  const type = event.type;
  if ((type !== 'message' && type !== 'app_mention') || event.subtype !== undefined || event.bot_id !== undefined)
    return ignored(eventId);
  const user = str(event.user);
  // The app's own bot user writing (a message posted without bot_id, by a workflow or a user token acting as the bot).
  if (user && botUsers(body).has(user)) return ignored(eventId);
  const channel = str(event.channel);
  const text = typeof event.text === 'string' ? event.text.replace(/<@[A-Z0-9]+>\s*/g, '').trim() : '';
  if (!user || !channel || !text) return ignored(eventId);
  // A mention in a channel is answered in its thread; a direct message is answered in the DM.
  const threadId = id(event.thread_ts) ?? (type === 'app_mention' ? id(event.ts) : undefined);
  const ts = id(event.ts);
  return {
    kind: 'message',
    eventId,
    // A mention arrives as both `message` and `app_mention` (two event ids), and a retry storm may
    // repeat it under further ids: the message is one, channel + ts.
    ...(ts ? { messageId: `${channel}:${ts}` } : {}),
    sender: user,
    text,
    replyTo: { recipient: channel, ...(threadId ? { threadId } : {}) },
  };
}

/** The bot users Slack says the event was delivered to (`authorizations[].user_id` with `is_bot`). */
function botUsers(body: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  const auths = Array.isArray(body.authorizations) ? body.authorizations : [];
  for (const a of auths) {
    const o = obj(a);
    const u = str(o.user_id);
    if (u && o.is_bot === true) out.add(u);
  }
  return out;
}
