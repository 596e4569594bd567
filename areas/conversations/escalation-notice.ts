import * as z from 'zod/mini';
import { enqueue, messageKind } from '#shared/queue/messages.ts';
import type { ConversationRecord } from './records.ts';

/**
 * The e-mail telling staff a conversation was escalated. Queued on the e-mail queue under an id made
 * of the conversation and the escalation's number, so the worker's once-only claim sends one notice
 * per escalation however often the event is queued; the worker reads who to tell and what to show
 * (escalation-mail.ts).
 */
export const ESCALATION_NOTICE = messageKind('email', 'conversation.escalation-notice', () =>
  z.object({ tenantId: z.string(), conversationId: z.string(), escalation: z.number() }),
);

export const queueEscalationNotice = (c: Pick<ConversationRecord, 'tenantId' | 'id' | 'escalations'>) =>
  enqueue(
    ESCALATION_NOTICE,
    { tenantId: c.tenantId, conversationId: c.id, escalation: c.escalations ?? 1 },
    { id: `escalation-notice:${c.tenantId}:${c.id}:${c.escalations ?? 1}` },
  );
