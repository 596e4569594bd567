import { logger } from '#shared/runtime/logger.ts';
import { queueEscalationNotice } from './escalation-notice.ts';
import type { ConversationRecord, MessageRecord } from './records.ts';

/**
 * What a committed conversation write tells others: staff of an escalation. Runs after the commit,
 * so only a change that happened is told; a failure to queue is logged, never the visitor's error.
 */
export async function announce(before: ConversationRecord, after: ConversationRecord, _messages: MessageRecord[]) {
  if (after.status === 'Escalated' && before.status !== 'Escalated') {
    await queueEscalationNotice(after).catch((err: unknown) =>
      logger.error('escalation notice not queued', { conversationId: after.id, error: err as Error }),
    );
  }
}
