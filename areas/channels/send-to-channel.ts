import type { ChannelConnection, OutboundMessage, SendResult } from './connection.ts';
import { sendDiscord, sendSlack, sendTeams, sendTelegram, sendWhatsApp } from './senders/index.ts';

export type { ChannelConnection, OutboundMessage, SendResult } from './connection.ts';
export { ChannelSendError } from './senders/send-error.ts';

/**
 * Sends one message through the connection's platform (one adapter per platform in `senders/`).
 * Resolves with the platform's message id; a refusal throws ChannelSendError carrying the platform's
 * error text. Used by the channel worker (queued answers and proactive messages) and the send-message tools.
 */
export function sendToChannel(connection: ChannelConnection, message: OutboundMessage): Promise<SendResult> {
  switch (connection.type) {
    case 'slack':
      return sendSlack(connection, message);
    case 'teams':
      return sendTeams(connection, message);
    case 'whatsapp':
      return sendWhatsApp(connection, message);
    case 'telegram':
      return sendTelegram(connection, message);
    case 'discord':
      return sendDiscord(connection, message);
  }
}
