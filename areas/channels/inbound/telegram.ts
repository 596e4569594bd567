import { id, ignored, jsonObject, obj, str, unixSeconds, type InboundEvent } from './event.ts';

/**
 * A Telegram Update: `message` with text is a turn (the chat is where the answer goes: a private
 * chat's id is the user's); edits, channel posts, callbacks and messages from bots are ignored.
 * `update_id` is the dedupe key; Telegram signs nothing, so a replay after the claim expired is told
 * by the message's own `date`.
 */
export function parseTelegram(rawBody: string): InboundEvent | null {
  const update = jsonObject(rawBody);
  if (!update) return null;
  const eventId = id(update.update_id) ?? null;
  const message = obj(update.message);
  const from = obj(message.from);
  const chatId = id(obj(message.chat).id);
  const sender = id(from.id);
  const text = (str(message.text) ?? '').trim();
  if (!chatId || !sender || !text || from.is_bot === true || message.via_bot !== undefined) return ignored(eventId);
  const messageId = id(message.message_id);
  const name = [str(from.first_name), str(from.last_name)].filter(Boolean).join(' ');
  const sentAt = unixSeconds(message.date);
  return {
    kind: 'message',
    eventId,
    // A webhook set again, or an update re-sent after a timeout, may carry a new update_id for the same message.
    ...(messageId ? { messageId: `${chatId}:${messageId}` } : {}),
    sender,
    ...(name ? { senderName: name } : {}),
    text,
    replyTo: { recipient: chatId },
    ...(sentAt !== undefined ? { sentAt } : {}),
  };
}
