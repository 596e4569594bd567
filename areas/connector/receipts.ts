import { writeItem } from '#shared/data/write-one.ts';
import { recordDelivery } from '#areas/conversations/for-connector.ts';
import { updateItem } from '#shared/data/commit.ts';
import { ApiError } from '#shared/http/errors.ts';
import { sentPointer, type Receipt } from '#areas/channels/for-connector.ts';
import { proactiveKey } from './records.ts';

/**
 * Delivery receipts: a message we sent is remembered by the platform's id of it (the channels
 * area's sent-messages.ts), so the platform's later report (WhatsApp status callbacks: sent, delivered, read, failed with its code) lands on the
 * proactive message or the conversation message. A message the platform reports failed after it
 * accepted the send shows Failed with the reason. Slack, Telegram and Discord send no receipts (a
 * 200 on the send is all they say); Teams tells a bot nothing either, so theirs stay Sent.
 */
/** Where a receipt's status may come from: forward only (read after delivered), Failed from any but Read. */
const FROM: Record<Receipt['status'], string[]> = {
  Sent: [],
  Delivered: ['Sent'],
  Read: ['Sent', 'Delivered'],
  Failed: ['Sent', 'Delivered'],
};

/** Applies one receipt; a receipt for a message we do not know (sent elsewhere, or expired) changes nothing. */
export async function applyReceipt(tenantId: string, channelId: string, r: Receipt): Promise<boolean> {
  const pointer = await sentPointer(tenantId, channelId, r.platformMessageId);
  if (!pointer) return false;
  if (pointer.kind === 'conversation')
    return recordDelivery(tenantId, pointer.conversationId, pointer.messageId, r.status, r.error);
  if (!FROM[r.status].length) return false;
  const values = Object.fromEntries(FROM[r.status].map((s, i) => [`:f${i}`, s]));
  try {
    await writeItem(
      updateItem(
        proactiveKey(tenantId, pointer.messageId),
        { deliveryStatus: r.status, deliveryError: r.error },
        {
          condition: `attribute_exists(pk) AND deliveryStatus IN (${Object.keys(values).join(', ')})`,
          values,
        },
      ),
    );
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) return false;
    throw err;
  }
}
