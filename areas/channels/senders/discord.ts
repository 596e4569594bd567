import type { DiscordConnection, OutboundMessage, SendResult } from '../connection.ts';
import { endpoint } from './endpoints.ts';
import { call, chunks, refused } from './send-error.ts';

/** Discord refuses message content over 2000 characters. */
const MAX_TEXT = 2000;

/**
 * A bot message in the channel (POST /channels/{id}/messages, `Authorization: Bot …`), or, for an
 * answer to a slash command, a follow-up on the interaction (POST /webhooks/{application}/{token},
 * authorised by the interaction token itself, valid 15 minutes).
 */
export async function sendDiscord(connection: DiscordConnection, message: OutboundMessage): Promise<SendResult> {
  const base = endpoint('discord');
  const followUp = !!message.interactionToken;
  const url = followUp
    ? `${base}/webhooks/${encodeURIComponent(connection.settings.applicationId)}/${encodeURIComponent(message.interactionToken!)}`
    : `${base}/channels/${encodeURIComponent(message.recipient)}/messages`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (!followUp) headers.authorization = `Bot ${connection.credentials.botToken}`;
  let last = '';
  for (const part of chunks(message.text, MAX_TEXT)) {
    const answer = await call('discord', url, {
      headers,
      body: JSON.stringify({ content: part }),
      // An interaction's follow-ups are their own route (the webhook token's); a channel's messages theirs.
      pace: { platform: 'discord', bot: connection.id, chat: followUp ? `interaction:${url}` : message.recipient },
    });
    if (answer.status !== 200)
      throw refused('discord', answer, typeof answer.body.message === 'string' ? answer.body.message : undefined);
    last = String(answer.body.id ?? '');
  }
  return { platformMessageId: last };
}
