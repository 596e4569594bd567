import { recordDelivery } from '#areas/conversations/for-connector.ts';
import type { z } from 'zod/mini';
import { resolveConnection } from './credentials.ts';
import type { CHANNEL_SEND } from './queue.ts';
import { rememberSent } from './receipts.ts';
import { sendToChannel } from './send-to-channel.ts';

/**
 * The channel worker's send of a queued message (an agent's answer, a staff reply, a tool's message).
 * A conversation message is remembered by the platform's id, so the platform's receipts reach it,
 * and marked Sent.
 */
export async function sendQueued({
  tenantId,
  connection,
  message,
  origin,
}: z.output<ReturnType<typeof CHANNEL_SEND.schema>>) {
  const sent = await sendToChannel(await resolveConnection(tenantId, connection), message);
  if (origin) {
    await rememberSent(tenantId, connection.id, sent.platformMessageId, { kind: 'conversation', ...origin });
    await recordDelivery(tenantId, origin.conversationId, origin.messageId, 'Sent');
  }
  return sent;
}
