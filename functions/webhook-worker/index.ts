import { PAYMENT_WEBHOOK } from '#areas/billing/events.ts';
import { applyWebhookEvent } from '#areas/billing/provider-events.ts';
import { handles } from '#shared/queue/messages.ts';
import { queueWorker } from '#shared/queue/worker.ts';

/** Applies verified provider webhook events, once each. */
export const handler = queueWorker('webhooks', [handles(PAYMENT_WEBHOOK, applyWebhookEvent)]);
