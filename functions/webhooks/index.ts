import { PAYMENT_WEBHOOK, parseWebhook } from '#areas/billing/events.ts';
import { webhookSecrets } from '#areas/billing/secrets.ts';
import { verifyWebhook, type PaymentProviderName } from '#areas/billing/signatures.ts';
import { invalidSignature, invalidWebhookBody } from '#areas/billing/errors.ts';
import { enqueue } from '#shared/queue/messages.ts';
import { webhookRoutes } from '#areas/billing/routes/webhooks.ts';
import type { ApiRequest } from '#shared/runtime/request.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';

/**
 * Verifies the signature on the raw body, checks the body's shape, queues the event and answers
 * at once; the webhook worker applies it. Nothing is written here, so a refused request changes nothing.
 */
const receive =
  (provider: PaymentProviderName) =>
  async ({ rawBody, isBase64Encoded, headers }: ApiRequest) => {
    const body =
      rawBody === undefined ? '' : isBase64Encoded ? Buffer.from(rawBody, 'base64').toString('utf8') : rawBody;
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    if (!verifyWebhook(provider, lower, body, await webhookSecrets(provider), Math.floor(Date.now() / 1000))) {
      throw invalidSignature();
    }
    const parsed = parseWebhook(provider, body);
    if (!parsed.ok) throw invalidWebhookBody(parsed.message);
    // The message id is the provider's event id: the worker's per-message claim keeps concurrent
    // redeliveries apart, and its transaction marker applies the event once.
    await enqueue(PAYMENT_WEBHOOK, { provider, ...parsed.event }, { id: `${provider}:${parsed.event.eventId}` });
    return { received: true, eventId: parsed.event.eventId };
  };

export const handler = apiHandler(webhookRoutes, {
  'webhooks.providerA': receive('payment-provider-a'),
  'webhooks.providerB': receive('payment-provider-b'),
});
