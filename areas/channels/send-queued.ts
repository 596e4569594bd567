import type { z } from 'zod/mini';
import { emit } from '#shared/data/events.ts';
import { resolveConnection } from './credentials.ts';
import { CONVERSATION_MESSAGE_SENT } from './events.ts';
import type { CHANNEL_SEND } from './queue.ts';
import { rememberSent } from './sent-messages.ts';
import { sendToChannel } from './send-to-channel.ts';

/**
 * The channel worker's send of a queued message (an agent's answer, a staff reply, a tool's message).
 * A conversation message is remembered by the platform's id, so the platform's receipts reach it,
 * and its conversation is told it was sent.
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
    await emit(CONVERSATION_MESSAGE_SENT, { tenantId, ...origin });
  }
  return sent;
}
