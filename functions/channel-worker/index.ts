import { sendProactive } from '#areas/connector/proactive-send.ts';
import { CHANNEL_SEND, PROACTIVE_SEND } from '#areas/connector/queue.ts';
import { sendQueued } from '#areas/connector/send-queued.ts';
import { handles } from '#shared/queue/messages.ts';
import { queueWorker } from '#shared/queue/worker.ts';

/**
 * Sends queued chat-channel messages: resolves the connection's credentials in the tenant's namespace,
 * then one platform call through its sender. A refusal throws with the platform's error text, so
 * SQS retries it and parks it in the dead-letter queue after the last receive; the worker's claim
 * keeps a delivered message from being sent twice. Proactive messages are sent from their record,
 * which the outcome updates (Sent, or Failed with the platform's error).
 */
export const handler = queueWorker('channels', [
  handles(CHANNEL_SEND, (payload) => sendQueued(payload)),
  handles(PROACTIVE_SEND, (payload, _id, delivery) => sendProactive(payload, delivery)),
]);
