import * as z from 'zod/mini';
import { enqueue, messageKind } from '#shared/queue/messages.ts';
import { uuid } from '#shared/routes/schemas.ts';
import { CHANNEL_TYPES } from './channel-types.ts';
import type { ConnectionDescriptor } from './credentials.ts';
import type { OutboundMessage } from './connection.ts';

const text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));

/**
 * One message to send through a channel connection, queued by whoever answers (the channel turn,
 * proactive messages, the send-message tools) and sent by the channel worker. The message carries
 * the connection's settings and secret references, never a secret value (queue bodies are not the
 * vault); the worker resolves them in the tenant's namespace.
 */
export const CHANNEL_SEND = messageKind(
  'channels',
  'channel.send',
  () =>
    z.object({
      tenantId: uuid(),
      connection: z.object({
        id: text(64),
        type: z.enum(CHANNEL_TYPES),
        settings: z.record(z.string().check(z.maxLength(64)), z.string().check(z.maxLength(512))),
        secretRefs: z.record(z.string().check(z.maxLength(64)), text(300)),
      }),
      message: z.object({
        recipient: text(512),
        text: text(40_000),
        threadId: z.optional(text(200)),
        serviceUrl: z.optional(text(512)),
        interactionToken: z.optional(text(1000)),
      }),
      /** The conversation message this is (an answer or a staff reply): its receipts are recorded there. */
      origin: z.optional(z.object({ conversationId: uuid(), messageId: text(128) })),
    }),
  // One chat's messages reach the platform in the order they were queued.
  { group: (p) => `${p.connection.id}\n${p.message.recipient}` },
);

/**
 * Queues a send; `id` (e.g. the proactive message id, or `{channelId}:{eventId}` for a turn's answer)
 * makes a duplicate enqueue send once, through the worker's claim.
 */
export const sendChannelMessage = (
  send: {
    tenantId: string;
    connection: ConnectionDescriptor;
    message: OutboundMessage;
    origin?: { conversationId: string; messageId: string };
  },
  opts: { id?: string } = {},
) => enqueue(CHANNEL_SEND, send, opts);

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
