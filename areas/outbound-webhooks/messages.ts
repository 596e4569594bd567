import * as z from 'zod/mini';
import { messageKind } from '#shared/queue/messages.ts';

/**
 * One delivery attempt of one event to one subscription. The event travels in the message (its data
 * is bounded by what publishes it), so each retry signs and sends the same body again; `attempt`
 * makes each retry a message of its own for the worker's once-only claim.
 */
export const DELIVERY_ATTEMPT = messageKind('deliveries', 'webhook.delivery', () =>
  z.object({
    tenantId: z.string(),
    subscriptionId: z.string(),
    deliveryId: z.string(),
    attempt: z.number(),
    event: z.object({
      id: z.string(),
      type: z.string(),
      timestamp: z.string(),
      data: z.record(z.string(), z.unknown()),
    }),
  }),
);
export type DeliveryAttempt = z.output<ReturnType<typeof DELIVERY_ATTEMPT.schema>>;
export type OutboundEvent = DeliveryAttempt['event'];
