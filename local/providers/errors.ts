import { defineError } from '#shared/http/errors.ts';

// The local payment provider's own refusals (its hosted checkout and renewal pages).
export const checkoutExpired = defineError(409, 'CHECKOUT_EXPIRED', 'This checkout session has expired');
export const checkoutCompleted = defineError(409, 'CHECKOUT_COMPLETED', 'This checkout session is already completed');
export const providerSubscriptionCancelled = defineError(
  409,
  'SUBSCRIPTION_CANCELLED',
  'This provider subscription is cancelled',
);
