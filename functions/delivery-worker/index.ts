import { deliverAttempt } from '#areas/outbound-webhooks/deliver.ts';
import { DELIVERY_ATTEMPT } from '#areas/outbound-webhooks/messages.ts';
import { handles } from '#shared/queue/messages.ts';
import { queueWorker } from '#shared/queue/worker.ts';

/** Sends outbound webhook deliveries, signed, and queues their retries with back-off. */
export const handler = queueWorker('deliveries', [handles(DELIVERY_ATTEMPT, deliverAttempt)]);
