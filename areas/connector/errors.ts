import { defineError } from '#shared/http/errors.ts';
import type { ProactiveStatus } from './records.ts';

// Messages sent first (proactive).
export const channelInactive = defineError(409, 'CHANNEL_INACTIVE', 'The channel connection is inactive');
export const windowClosed = defineError(
  409,
  'WINDOW_CLOSED',
  "WhatsApp allows a free-form message only within 24 hours of the person's last message; this one would fall outside it",
);
/** The Bot Framework lets a bot write first only into a conversation an activity told it about. */
export const noConversationReference = defineError(
  409,
  'NO_CONVERSATION_REFERENCE',
  'The Teams bot has not heard from this recipient on this connection: a proactive message needs the conversation reference an activity of theirs (a message, or installing the bot) leaves',
);
export const proactiveNotSupported = defineError(
  409,
  'PROACTIVE_NOT_SUPPORTED',
  'A Teams outgoing webhook can only answer in the thread that mentioned it; proactive messages need the connection in bot mode',
);
export const messageNotCancellable = defineError(
  409,
  'MESSAGE_NOT_CANCELLABLE',
  (status: ProactiveStatus) => `The message is ${status}; only a Scheduled or Queued message can be cancelled`,
  { example: ['Sent'] },
);

// Chat platforms' webhooks.
export const invalidSignature = defineError(
  400,
  'INVALID_SIGNATURE',
  "The request's signature is missing or does not match the channel's secret",
);
/** Meta's subscription handshake expects 403 for a verify token that does not match. */
export const invalidVerifyToken = defineError(
  403,
  'INVALID_VERIFY_TOKEN',
  "The verify token is missing or does not match the connection's",
);
export const invalidWebhookBody = defineError(400, 'INVALID_WEBHOOK_BODY', 'The body is not a JSON object');
export const staleEvent = defineError(
  400,
  'STALE_EVENT',
  'The event is older than the 8 days a platform may deliver it again; a replay is not processed',
);
export const duplicateEvent = defineError(409, 'DUPLICATE_EVENT', 'The event was received before', {
  internal: "accept catches it: the provider's retry of an event already claimed is answered 200",
});

// WhatsApp message templates.
export const templatesNotSupported = defineError(
  409,
  'TEMPLATES_NOT_SUPPORTED',
  'Message templates are a WhatsApp feature; this connection is another platform',
);

// Discord's slash command.
export const commandsNotSupported = defineError(
  409,
  'COMMANDS_NOT_SUPPORTED',
  'Slash commands are registered for Discord connections; this connection is another platform',
);
export const platformRefused = defineError(
  502,
  'PLATFORM_REFUSED',
  (detail: string) => `The platform refused the call: ${detail}`,
  { example: ['discord answered 401: 401: Unauthorized'] },
);
