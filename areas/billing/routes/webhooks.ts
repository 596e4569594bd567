import * as z from 'zod/mini';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { invalidSignature, invalidWebhookBody } from '#areas/billing/errors.ts';

const webhookReceipt = once(() => z.object({ received: z.boolean(), eventId: z.string() }));

/** What both receive: a raw body (the signature covers its bytes) of at most 64 KB, answered at once. */
const received = {
  group: 'webhooks',
  scope: scope.public,
  status: 200,
  errors: [invalidSignature, invalidWebhookBody],
  bodyType: 'raw',
  maxBodyBytes: 64 * 1024,
  schemas: () => ({ response: webhookReceipt() }),
} as const;

/** Provider webhooks: their own function, which only verifies, queues and answers. */
export const webhookRoutes = defineRoutes([
  {
    id: 'webhooks.providerA',
    method: 'POST',
    path: '/api/webhooks/payment-provider-a',
    auth: { kind: 'signature', provider: 'payment-provider-a' },
    headers: [
      {
        name: 'Webhook-Signature',
        required: true,
        description: 't=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">',
      },
    ],
    summary:
      'Payment provider A events (`Webhook-Signature: t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, 300 s window): verified, queued and answered 200 at once; unknown kinds are recorded and ignored. A bad signature is 400 INVALID_SIGNATURE',
    ...received,
  },
  {
    id: 'webhooks.providerB',
    method: 'POST',
    path: '/api/webhooks/payment-provider-b',
    auth: { kind: 'signature', provider: 'payment-provider-b' },
    headers: [
      { name: 'X-Timestamp', required: true, description: 'Seconds since the epoch, within 300 s' },
      { name: 'X-Signature', required: true, description: 'base64 HMAC-SHA256 of "<timestamp>.<raw body>"' },
    ],
    summary:
      'Payment provider B status callbacks (`X-Timestamp` and `X-Signature: base64 HMAC-SHA256 of "<timestamp>.<raw body>"`, 300 s window): verified, queued and answered 200 at once. A bad signature is 400 INVALID_SIGNATURE',
    ...received,
  },
]);
