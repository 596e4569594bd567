import { CONVERSATION_MESSAGE_SENT } from '#areas/channels/events.ts';
import { CHANNEL_SEND } from '#areas/channels/queue.ts';
import { sendQueued } from '#areas/channels/send-queued.ts';
import { sendProactive } from '#areas/connector/proactive-send.ts';
import { PROACTIVE_SEND } from '#areas/connector/queue.ts';
import { markSent } from '#areas/conversations/delivery-status.ts';
import { on } from '#shared/data/events.ts';
import { handles } from '#shared/queue/messages.ts';
import { queueWorker } from '#shared/queue/worker.ts';

/**
 * Sends queued chat-channel messages: resolves the connection's credentials in the tenant's namespace,
 * then one platform call through its sender. A refusal throws with the platform's error text, so
 * SQS retries it and parks it in the dead-letter queue after the last receive; the worker's claim
 * keeps a delivered message from being sent twice. Proactive messages are sent from their record,
 * which the outcome updates (Sent, or Failed with the platform's error); a conversation's message
 * sent is marked Sent on it.
 */
export const handler = queueWorker(
  'channels',
  [
    handles(CHANNEL_SEND, (payload) => sendQueued(payload)),
    handles(PROACTIVE_SEND, (payload, _id, delivery) => sendProactive(payload, delivery)),
  ],
  { wiring: [on(CONVERSATION_MESSAGE_SENT, markSent)] },
);
