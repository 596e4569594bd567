import type { MessageHandler } from '#shared/queue/worker.ts';
import { applyWebhookEvent, type WebhookPayload } from '#areas/billing/provider-events.ts';

/** Message type -> handler. */
export const webhookMessageHandlers: Record<string, MessageHandler> = {
  'payment.webhook': async (payload) => void (await applyWebhookEvent(payload as unknown as WebhookPayload)),
};
