import { publishEvents } from '#areas/outbound-webhooks/for-conversations.ts';
import { logger } from '#shared/runtime/logger.ts';
import { queueEscalationNotice } from './escalation-notice.ts';
import type { ConversationRecord, MessageRecord } from './records.ts';

/** What a subscriber reads of a conversation (no session hash, no search text, no model context). */
const conversationData = (c: ConversationRecord) => ({
  conversationId: c.id,
  agentId: c.agentId,
  channel: c.channel,
  status: c.status,
  escalationReason: c.escalationReason,
  visitor: c.visitor,
  messageCount: c.messageCount,
  startedAt: c.startedAt,
  lastMessageAt: c.lastMessageAt,
  closedAt: c.closedAt,
});

const messageData = (m: MessageRecord) => ({ id: m.id, role: m.role, text: m.text, createdAt: m.createdAt });

/**
 * What a committed conversation write tells others: staff of an escalation (one e-mail per
 * escalation), and webhook subscribers of escalations, closes and new messages (system notes are
 * not messages to them). Runs after the commit, so only a change that happened is told; a failure
 * to queue is logged, never the visitor's error.
 */
export async function announce(before: ConversationRecord, after: ConversationRecord, messages: MessageRecord[]) {
  const events: Parameters<typeof publishEvents>[1] = [];
  let notice: Promise<unknown> = Promise.resolve();
  if (after.status === 'Escalated' && before.status !== 'Escalated') {
    notice = queueEscalationNotice(after).catch((err: unknown) =>
      logger.error('escalation notice not queued', { conversationId: after.id, error: err as Error }),
    );
    events.push({ type: 'conversation.escalated', data: conversationData(after) });
  }
  if (after.status === 'Closed' && before.status !== 'Closed')
    events.push({ type: 'conversation.closed', data: { ...conversationData(after), csat: after.csat } });
  for (const m of messages) {
    if (m.role === 'system') continue;
    const data = { conversationId: after.id, agentId: after.agentId, channel: after.channel, message: messageData(m) };
    events.push({ type: 'message.created', data });
  }
  await Promise.all([notice, publishEvents(after.tenantId, events)]);
}
