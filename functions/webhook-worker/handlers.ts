import { PAYMENT_WEBHOOK } from '#areas/billing/events.ts';
import { applyWebhookEvent } from '#areas/billing/provider-events.ts';
import { handles, type MessageRoute } from '#shared/queue/messages.ts';

/** The messages this worker applies. */
export const webhookRoutes: MessageRoute[] = [handles(PAYMENT_WEBHOOK, applyWebhookEvent)];
