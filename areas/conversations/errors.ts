import { defineError } from '#shared/http/errors.ts';

// The widget's visitor.
export const originNotAllowed = defineError(403, 'ORIGIN_NOT_ALLOWED', "This page's origin may not use the widget");
export const widgetInactive = defineError(409, 'WIDGET_INACTIVE', 'The widget is inactive');
export const feedbackAlreadyGiven = defineError(
  409,
  'FEEDBACK_ALREADY_GIVEN',
  'This conversation has been rated already',
);
export const invalidIdempotencyKey = defineError(
  400,
  'INVALID_IDEMPOTENCY_KEY',
  'Idempotency-Key is 1-100 letters, digits or _ . : -',
);
export const CAP_MESSAGE =
  "Thank you for your messages! The assistant has answered as much as it can for now. Please come back later, or use our other contact options and we'll be glad to help.";
/**
 * A cap the tenant set on anonymous spending (docs/decisions/conversations.md, "Visitor caps"). The
 * message is the visitor's to read as it is: kind, and the same whichever cap was reached.
 */
export const widgetLimitReached = defineError(
  429,
  'WIDGET_LIMIT_REACHED',
  (_limit: string = 'dailyTokens', _retryAfterSeconds: number = 3600) => CAP_MESSAGE,
  { retryAfterSeconds: (_limit, seconds = 3600) => seconds, details: (limit) => ({ limit }) },
);
/** A retried message whose first attempt is still running. */
export const requestInProgress = defineError(
  409,
  'REQUEST_IN_PROGRESS',
  'This message is still being answered; try again shortly',
);
/** Another message of the conversation is still being answered, past the time a message waits for it. */
export const conversationBusy = defineError(
  409,
  'CONVERSATION_BUSY',
  'The agent is still answering an earlier message; send this one again shortly',
  { retryAfterSeconds: 5 },
);

// A conversation's agent and states.
export const conversationClosed = defineError(
  409,
  'CONVERSATION_CLOSED',
  'The conversation is closed and takes no new messages',
);
export const invalidStatusTransition = defineError(
  409,
  'INVALID_STATUS_TRANSITION',
  (from: string, to: string) => `A conversation cannot go from ${from} to ${to}`,
  { example: ['Resolved', 'Open'] },
);
