import { writeItem } from '#shared/data/write-one.ts';
import { updateItem } from '#shared/data/commit.ts';
import { ApiError } from '#shared/http/errors.ts';
import { messageKey } from './records.ts';

type DeliveryStatus = 'Sent' | 'Delivered' | 'Read' | 'Failed';

/** The statuses a message may still move from to each: receipts arrive out of order, and never go back. */
const FROM: Record<DeliveryStatus, DeliveryStatus[]> = {
  Sent: [],
  Delivered: ['Sent'],
  Read: ['Sent', 'Delivered'],
  Failed: ['Sent', 'Delivered'],
};

/**
 * What the platform reported of a message the agent or staff sent on a channel (the connector's
 * receipts): Sent at the send, then Delivered, Read, or Failed with the platform's reason. A late
 * receipt (delivered after read) changes nothing. False when it did not apply.
 */
export async function recordDelivery(
  tenantId: string,
  conversationId: string,
  messageId: string,
  status: DeliveryStatus,
  error: string | null = null,
): Promise<boolean> {
  const from = FROM[status];
  const values = Object.fromEntries(from.map((s, i) => [`:f${i}`, s]));
  const condition =
    status === 'Sent'
      ? 'attribute_exists(pk) AND attribute_not_exists(deliveryStatus)'
      : `attribute_exists(pk) AND (attribute_not_exists(deliveryStatus) OR deliveryStatus IN (${Object.keys(values).join(', ')}))`;
  try {
    await writeItem(
      updateItem(
        messageKey(tenantId, conversationId, messageId),
        { deliveryStatus: status, deliveryError: error },
        { condition, values },
      ),
    );
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) return false;
    throw err;
  }
}

/** The subscriber of the channels area's CONVERSATION_MESSAGE_SENT: the platform took the message. */
export const markSent = (e: { tenantId: string; conversationId: string; messageId: string }) =>
  recordDelivery(e.tenantId, e.conversationId, e.messageId, 'Sent');
