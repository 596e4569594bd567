import type { OutboundMessage, SendResult, SlackConnection } from '../connection.ts';
import { endpoint } from './endpoints.ts';
import { call, refused } from './send-error.ts';

/**
 * Slack Web API chat.postMessage with the bot token. Slack answers 200 even when it refuses
 * (`{ ok: false, error: 'channel_not_found' }`), so `ok` decides, not the status.
 */
export async function sendSlack(connection: SlackConnection, message: OutboundMessage): Promise<SendResult> {
  const answer = await call('slack', `${endpoint('slack')}/chat.postMessage`, {
    headers: {
      authorization: `Bearer ${connection.credentials.botToken}`,
      'content-type': 'application/json; charset=utf-8',
    },
    pace: { platform: 'slack', bot: connection.id, chat: message.recipient },
    body: JSON.stringify({
      channel: message.recipient,
      text: message.text,
      ...(message.threadId ? { thread_ts: message.threadId } : {}),
    }),
  });
  if (answer.status !== 200 || answer.body.ok !== true)
    throw refused('slack', answer, typeof answer.body.error === 'string' ? answer.body.error : undefined);
  return { platformMessageId: String(answer.body.ts ?? '') };
}
