import { arr, id, ignored, jsonObject, obj, str, type InboundEvent } from './event.ts';

/** Discord interaction types (discord.com/developers/docs/interactions/receiving-and-responding). */
const DISCORD_PING = 1;
const DISCORD_APPLICATION_COMMAND = 2;
/** Answers: PONG to a PING; "thinking…" (deferred channel message) while the turn runs from the queue. */
export const DISCORD_PONG = { type: 1 } as const;
export const DISCORD_DEFERRED = { type: 5 } as const;

/**
 * A Discord interaction: PING (answered with PONG) or an application command (`/ask question:…`)
 * whose string options are the text. The answer is a follow-up on the interaction's token (valid
 * 15 minutes), so the webhook answers DEFERRED at once. Components, autocomplete and modals are ignored.
 */
export function parseDiscord(rawBody: string): InboundEvent | null {
  const interaction = jsonObject(rawBody);
  if (!interaction) return null;
  const eventId = id(interaction.id) ?? null;
  if (interaction.type === DISCORD_PING) return { kind: 'ping', eventId, sender: null, text: '' };
  if (interaction.type !== DISCORD_APPLICATION_COMMAND) return ignored(eventId);
  // In a server the user is under `member`; in a direct message it is `user`.
  const user = obj(obj(interaction.member).user ?? interaction.user);
  const sender = id(user.id);
  const channelId = id(interaction.channel_id) ?? id(obj(interaction.channel).id);
  const text = arr(obj(interaction.data).options)
    .map((o) => obj(o))
    .filter((o) => typeof o.value === 'string')
    .map((o) => (o.value as string).trim())
    .filter(Boolean)
    .join('\n');
  const token = str(interaction.token);
  if (!sender || !channelId || !text || user.bot === true) return ignored(eventId);
  const name = str(user.global_name) ?? str(user.username);
  return {
    kind: 'message',
    eventId,
    sender,
    ...(name ? { senderName: name } : {}),
    text,
    replyTo: { recipient: channelId, ...(token ? { interactionToken: token } : {}) },
  };
}
