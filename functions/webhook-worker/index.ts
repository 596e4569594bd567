import { queueWorker } from '#shared/queue/worker.ts';
import { webhookRoutes } from './handlers.ts';

/** Applies verified provider webhook events, once each. */
export const handler = queueWorker('webhooks', webhookRoutes);
