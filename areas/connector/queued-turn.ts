import { runChannelTurn } from '#areas/conversations/for-connector.ts';
import type { z } from 'zod/mini';
import type { Delivery } from '#shared/queue/messages.ts';
import { logger } from '#shared/runtime/logger.ts';
import { releaseInbound } from './inbound-claims.ts';
import type { CHANNEL_TURN } from './queue.ts';

type QueuedTurn = z.output<ReturnType<typeof CHANNEL_TURN.schema>>;

/**
 * The turn worker's run of a queued message. A message that ends unanswered (skipped, or failing on
 * its last receive before the dead-letter queue) gives back the webhook's claims on it, so the
 * platform's redelivery is taken again; the conversation's idempotency key still stores it once.
 */
export async function runQueuedTurn(turn: QueuedTurn, requestId: string, delivery: Delivery) {
  const claim = {
    tenantId: turn.tenantId,
    channelId: turn.channelId,
    eventId: turn.eventId,
    messageId: turn.messageId,
  };
  try {
    if ((await runChannelTurn(turn, requestId)) === 'skipped') await releaseInbound(claim);
  } catch (err) {
    if (delivery.lastReceive)
      await releaseInbound(claim).catch((e) => logger.error('claim not released', { error: e as Error }));
    throw err;
  }
}
