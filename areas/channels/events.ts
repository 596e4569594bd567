import * as z from 'zod/mini';
import { defineEvent } from '#shared/data/events.ts';
import { uuid } from '#shared/routes/schemas.ts';

/**
 * A conversation's message left through its channel (the platform took it): the conversations area
 * marks it Sent. Emitted by the channel worker after the send and its receipt pointer.
 */
export const CONVERSATION_MESSAGE_SENT = defineEvent('channels.conversation-message-sent', () =>
  z.object({ tenantId: uuid(), conversationId: uuid(), messageId: z.string().check(z.minLength(1), z.maxLength(128)) }),
);
