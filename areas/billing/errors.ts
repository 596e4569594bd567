import { defineError } from '#shared/http/errors.ts';
import { METHOD_LIMIT } from './vocabulary.ts';

// Subscriptions and payments.
export const subscriptionExists = defineError(409, 'SUBSCRIPTION_EXISTS', 'The tenant already has a live subscription');
export const subscriptionCancelled = defineError(409, 'SUBSCRIPTION_CANCELLED', 'The subscription is cancelled');
export const notTrialing = defineError(409, 'NOT_TRIALING', 'Only a trialing subscription can have its trial extended');
export const paymentNotRefundable = defineError(409, 'PAYMENT_NOT_REFUNDABLE', 'Only a Paid payment can be refunded');
export const refundAlreadyRequested = defineError(
  409,
  'REFUND_ALREADY_REQUESTED',
  'A refund of this payment was already requested',
);

// Payment methods and the providers.
export const limitReached = defineError(409, 'LIMIT_REACHED', `At most ${METHOD_LIMIT} payment methods per tenant`);
export const defaultTaken = defineError(409, 'DEFAULT_TAKEN', 'Another method became the default meanwhile', {
  internal: 'addMethod catches it and stores the method as another one',
});
export const paymentMethodDeclined = defineError(
  400,
  'PAYMENT_METHOD_DECLINED',
  'The provider declined this payment method',
);
/** No payment provider is installed on this deployment. */
export const paymentsNotConfigured = defineError(
  503,
  'PAYMENTS_NOT_CONFIGURED',
  'Payment providers are not configured for this deployment',
);

// Idempotency-Key on the writes that charge.
export const invalidIdempotencyKey = defineError(
  400,
  'INVALID_IDEMPOTENCY_KEY',
  'Idempotency-Key must be 1-200 visible ASCII characters',
);
export const idempotencyKeyReused = defineError(
  409,
  'IDEMPOTENCY_KEY_REUSED',
  'This Idempotency-Key was used with another request body',
);
export const idempotencyRequestInProgress = defineError(
  409,
  'IDEMPOTENCY_REQUEST_IN_PROGRESS',
  'A request with this Idempotency-Key is still running; retry shortly',
);

// Provider webhooks.
export const invalidSignature = defineError(
  400,
  'INVALID_SIGNATURE',
  'The webhook signature is missing, wrong or outside the 300 s window',
);
/** The message names the fields the provider's body got wrong. */
export const invalidWebhookBody = defineError(400, 'INVALID_WEBHOOK_BODY', (message: string) => message, {
  example: ['data.object.id: Invalid input: expected string, received undefined'],
});
export const webhookEventApplied = defineError(409, 'WEBHOOK_EVENT_APPLIED', 'The event was applied already', {
  internal: 'applyWebhookEvent catches it: another delivery of the event was applied first',
});
