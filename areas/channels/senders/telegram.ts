import type { OutboundMessage, SendResult, TelegramConnection } from '../connection.ts';
import { endpoint } from './endpoints.ts';
import { call, chunks, refused } from './send-error.ts';

/** Telegram refuses messages over 4096 characters: longer answers go as several messages. */
const MAX_TEXT = 4096;

/** Bot API sendMessage; the token is part of the path, so neither the URL nor the path is ever logged. */
export async function sendTelegram(connection: TelegramConnection, message: OutboundMessage): Promise<SendResult> {
  let last = '';
  for (const part of chunks(message.text, MAX_TEXT)) {
    const answer = await call('telegram', `${endpoint('telegram')}/bot${connection.credentials.botToken}/sendMessage`, {
      pace: { platform: 'telegram', bot: connection.id, chat: message.recipient },
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: message.recipient, text: part }),
    });
    if (answer.status !== 200 || answer.body.ok !== true)
      throw refused(
        'telegram',
        answer,
        typeof answer.body.description === 'string' ? answer.body.description : undefined,
      );
    last = String((answer.body.result as { message_id?: unknown } | undefined)?.message_id ?? '');
  }
  return { platformMessageId: last };
}
