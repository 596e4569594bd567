import {
  ChannelSendError,
  channelById,
  ConnectionUnusableError,
  rememberSent,
  resolveConnection,
  sendToChannel,
  windowOpen,
  type OutboundMessage,
} from '#areas/channels/for-connector.ts';
import type { Delivery } from '#shared/queue/messages.ts';
import { logger } from '#shared/runtime/logger.ts';
import { noConversationReference, proactiveNotSupported } from './errors.ts';
import { markFailed, markSent, readProactive, type ProactiveRecord } from './proactive.ts';
import { teamsReference } from './teams-reference.ts';

/**
 * The channel worker's send of one proactive message. Only a Queued message is sent (a cancelled one
 * is skipped). A refusal retrying cannot help (the platform's 4xx, a connection missing a credential,
 * deleted or inactive) is recorded Failed at once with its reason; a passing one (429, 5xx, network)
 * is thrown so SQS delivers it again, and recorded Failed with the platform's error on the last
 * delivery, which then completes: the record holds the failure for the tenant, and a dead letter
 * would only repeat it.
 */
export async function sendProactive({ tenantId, messageId }: { tenantId: string; messageId: string }, d: Delivery) {
  const m = await readProactive(tenantId, messageId, true).catch(() => null);
  if (m?.status !== 'Queued') return;
  const found = await channelById(m.channelId);
  if (!found || found.tenantId !== tenantId) return markFailed(m, 'The channel connection was deleted');
  if (!found.connection.isActive) return markFailed(m, 'The channel connection is inactive');
  const { id, type, settings, secretRefs } = found.connection;
  let platformMessageId: string;
  const sentAs = await howToSend(m);
  const where = await addressOf(m, settings);
  if ('refused' in where) return markFailed(m, where.refused);
  try {
    const connection = await resolveConnection(tenantId, { id, type, settings, secretRefs });
    ({ platformMessageId } = await sendToChannel(connection, {
      ...where,
      text: m.text ?? '',
      ...(sentAs === 'template' && m.template ? { template: m.template } : {}),
    }));
  } catch (err) {
    const final =
      d.lastReceive || err instanceof ConnectionUnusableError || (err instanceof ChannelSendError && !err.retryable);
    if (!final) throw err;
    logger.warn('proactive message failed', { messageId, attempt: d.receiveCount, error: err as Error });
    return markFailed(m, err instanceof ChannelSendError ? err.message : (err as Error).message);
  }
  // Remembered before the mark: Meta's first receipt may come back within the second.
  await rememberSent(tenantId, m.channelId, platformMessageId, { kind: 'proactive', messageId: m.id });
  return markSent(m, platformMessageId, sentAs);
}

/**
 * Where the message goes: the recipient as given, or on Teams the conversation of the reference kept
 * for them, read now (a later activity may have moved it; the connection may have left bot mode).
 */
async function addressOf(
  m: ProactiveRecord,
  settings: Record<string, string>,
): Promise<Pick<OutboundMessage, 'recipient' | 'serviceUrl' | 'teamsReference'> | { refused: string }> {
  if (m.channelType !== 'teams') return { recipient: m.recipient };
  if (settings.mode !== 'bot') return { refused: proactiveNotSupported().message };
  const reference = await teamsReference(m.tenantId, m.channelId, m.recipient);
  if (!reference) return { refused: noConversationReference().message };
  return { recipient: reference.conversation.id, serviceUrl: reference.serviceUrl, teamsReference: reference };
}

/**
 * Free text when there is text and (on WhatsApp) the window is open now; else the template. Decided at
 * the send: the person may have written since the message was created, which reopens the window.
 */
async function howToSend(m: ProactiveRecord): Promise<'text' | 'template'> {
  if (!m.template) return 'text';
  if (m.text === null) return 'template';
  return (await windowOpen(m.tenantId, m.channelId, m.recipient, Date.now())) ? 'text' : 'template';
}
