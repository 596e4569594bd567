import { queueWorker } from '#shared/queue/worker.ts';
import { webhookMessageHandlers } from './handlers.ts';

/** Applies verified provider webhook events, once each. */
export const handler = queueWorker('webhooks', webhookMessageHandlers);
