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
