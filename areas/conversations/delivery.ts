import { channelById, sendChannelMessage } from '#areas/channels/for-conversations.ts';
import { logger } from '#shared/runtime/logger.ts';
import type { ConversationRecord, MessageRecord } from './records.ts';

/**
 * A message for the person on the other side: the widget reads it by its poll; a channel conversation
 * sends it through the channel's queue (retries and dead letters there; the message id makes a
 * repeated enqueue send once).
 */
export async function deliverToChannel(c: ConversationRecord, m: MessageRecord) {
  if (c.channel === 'widget' || !c.channelId || !c.replyTo) return;
  const found = await channelById(c.channelId);
  if (!found || found.tenantId !== c.tenantId || !found.connection.isActive) {
    logger.warn('channel reply not sent: the connection is gone or inactive', { conversationId: c.id });
    return;
  }
  const { id, type, settings, secretRefs } = found.connection;
  await sendChannelMessage(
    {
      tenantId: c.tenantId,
      connection: { id, type, settings, secretRefs },
      message: { ...c.replyTo, text: m.text },
      origin: { conversationId: c.id, messageId: m.id },
    },
    { id: `conversation:${m.id}` },
  );
}
