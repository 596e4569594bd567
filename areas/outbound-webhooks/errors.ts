import { defineError } from '#shared/http/errors.ts';
import { MAX_SUBSCRIPTIONS } from './records.ts';

export const subscriptionLimitReached = defineError(
  409,
  'SUBSCRIPTION_LIMIT_REACHED',
  `A tenant has at most ${MAX_SUBSCRIPTIONS} webhook subscriptions`,
);
export const targetNotAllowed = defineError(
  400,
  'TARGET_NOT_ALLOWED',
  (why: string) => `The webhook URL is not allowed: ${why}`,
  { example: ['only https URLs are allowed'] },
);
