import * as z from 'zod/mini';
import { messageKind } from '#shared/queue/messages.ts';
import { uuid } from '#shared/routes/schemas.ts';

const text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));

/**
 * A person's message that arrived on a channel webhook, verified and deduplicated there: the channel
 * turn worker finds or starts the person's conversation, runs the agent's turn and queues the answer
 * (CHANNEL_SEND). Its own queue, so the turn's grants (models, knowledge, tools) stay off the sender.
 */
export const CHANNEL_TURN = messageKind(
  'turns',
  'channel.turn',
  () =>
    z.object({
      tenantId: uuid(),
      channelId: uuid(),
      /** The event's and the message's ids as the webhook's claims key them (given back when unanswered). */
      eventId: text(256),
      messageId: z.optional(text(256)),
      sender: text(256),
      senderName: z.optional(text(200)),
      text: text(40_000),
      replyTo: z.object({
        recipient: text(512),
        threadId: z.optional(text(200)),
        serviceUrl: z.optional(text(512)),
        interactionToken: z.optional(text(1000)),
      }),
      receivedAt: z.string().check(z.minLength(20), z.maxLength(40)),
    }),
  // One person's messages on one connection are answered one at a time, in the order they came.
  { group: (p) => `${p.channelId}\n${p.sender}` },
);

/** A proactive message to send now (its record says what and where; a Cancelled one is not sent). */
export const PROACTIVE_SEND = messageKind(
  'channels',
  'proactive.send',
  () => z.object({ tenantId: uuid(), messageId: uuid() }),
  { group: (p) => p.messageId },
);
