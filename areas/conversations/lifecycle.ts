import { queryItems } from '#shared/data/query.ts';
import type { Change } from '#shared/data/commit.ts';
import { config } from '#shared/platform/config.ts';
import { logger } from '#shared/runtime/logger.ts';
import { conversationClosed, invalidStatusTransition } from './errors.ts';
import {
  liveIndex,
  newMessage,
  type ConversationRecord,
  type ConversationStatus,
  type MessageRecord,
} from './records.ts';
import { mutate, type Stored } from './store.ts';

/**
 * The conversation's states (spec "AI conversations"): Open -> Escalated -> Resolved or Closed, and
 * Open -> Resolved or Closed. Resolved still takes the visitor's rating, which closes it; Closed is
 * the end. The analytics record is sent once, when a conversation reaches Closed.
 */
const NEXT: Record<ConversationStatus, readonly ConversationStatus[]> = {
  Open: ['Escalated', 'Resolved', 'Closed'],
  Escalated: ['Resolved', 'Closed'],
  Resolved: ['Closed'],
  Closed: [],
};

const IDLE_MINUTES = 30;
export const REASONS = {
  visitor: 'The visitor asked for a person',
  noAnswer: 'No source reached the confidence threshold',
  turnLimit: 'The turn limit was reached',
  tokens: "The tenant's token allowance is used up",
  staff: 'A person took over',
};

/** Messages (the visitor's, a person's) are taken only while the agent or a person is there to answer. */
export const takesMessages = (c: Pick<ConversationRecord, 'status'>) => c.status === 'Open' || c.status === 'Escalated';

export type Actor = Change['actor'];

export const conversationChange = (
  c: Pick<ConversationRecord, 'tenantId' | 'id'>,
  actor: Actor,
  action: string,
  changes: Change['changes'],
): Change => ({ tenantId: c.tenantId, actor, entityType: 'Conversation', entityId: c.id, action, changes });

export const systemMessage = (c: ConversationRecord, text: string, now: number, after?: string): MessageRecord =>
  newMessage(c, 'system', text, { now, after });

/** The conversation moved to `status` (the reason kept when it escalates), or a 409 when the move is not allowed. */
export function moved(
  c: ConversationRecord,
  status: ConversationStatus,
  opts: { reason?: string | null; now: number },
): ConversationRecord {
  if (c.status === status) return c;
  if (!NEXT[c.status].includes(status)) {
    if (c.status === 'Closed') throw conversationClosed();
    throw invalidStatusTransition(c.status, status);
  }
  const at = new Date(opts.now).toISOString();
  const next: ConversationRecord = { ...c, status };
  if (status === 'Escalated') {
    next.escalated = true;
    next.escalations = (c.escalations ?? 0) + 1;
    next.escalationReason = opts.reason?.trim() || c.escalationReason || REASONS.visitor;
  }
  if (status === 'Resolved') next.resolved = true;
  if (status === 'Closed') next.closedAt = at;
  return next;
}

const STATUS_NOTES: Partial<Record<ConversationStatus, (c: ConversationRecord) => string>> = {
  Escalated: (c) => `Handed to a person: ${c.escalationReason}`,
  Resolved: () => 'Marked resolved',
  Closed: () => 'Conversation closed',
};

/** The state change and its note in the transcript, as one write (nothing when the status is already that). */
export async function changeStatus(
  first: Stored,
  status: ConversationStatus,
  opts: { reason?: string | null; actor: Actor; extra?: (c: ConversationRecord) => ConversationRecord },
) {
  return mutate(
    first.tenantId,
    first.id,
    (current) => {
      const now = Date.now();
      const next = (opts.extra ?? ((x) => x))(moved(current, status, { reason: opts.reason, now }));
      if (next === current) return { next };
      return {
        next,
        messages: [systemMessage(next, STATUS_NOTES[status]!(next), now)],
        change: conversationChange(next, opts.actor, `Conversation${status}`, {
          from: current.status,
          to: status,
          ...(status === 'Escalated' ? { reason: next.escalationReason } : {}),
        }),
      };
    },
    first,
  );
}

/**
 * The scheduler's sweep (docs/architecture.md, "The scheduler": every minute): every conversation whose
 * last message is older than the idle limit closes, found on the live index by its last message (one
 * Query, no Scan). A conversation written meanwhile is re-read by `mutate` and left open.
 */
export async function closeIdleConversations(now = Date.now()): Promise<number> {
  const before = new Date(now - IDLE_MINUTES * 60_000).toISOString();
  const due = await queryItems<Stored>({
    TableName: config.tableName,
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :before',
    ExpressionAttributeValues: { ':pk': liveIndex.pk, ':before': before },
  });
  let closed = 0;
  for (const c of due) {
    try {
      const out = await mutate(c.tenantId, c.id, (current) => {
        if (current.status === 'Closed' || current.lastMessageAt >= before) return { next: current };
        const next = moved(current, 'Closed', { now });
        return {
          next,
          messages: [systemMessage(next, `Closed after ${IDLE_MINUTES} idle minutes`, now)],
          change: conversationChange(next, null, 'ConversationClosed', { from: current.status, reason: 'idle' }),
        };
      });
      if (out.messages.length) closed++;
    } catch (err) {
      logger.warn('idle conversation not closed', { conversationId: c.id, error: err as Error });
    }
  }
  return closed;
}
