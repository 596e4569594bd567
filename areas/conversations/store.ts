import { setTimeout as sleep } from 'node:timers/promises';
import { conversationRecordWrites } from '#areas/analytics/for-conversations.ts';
import { commitChange, orConflict, putItem, putNew, type Change, type Write } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { config } from '#shared/platform/config.ts';
import { conflict, notFound } from '#shared/http/errors.ts';
import { announce } from './announce.ts';
import { afterVariantMoves, variantMoves } from './variant.ts';
import {
  conversationItem,
  conversationKey,
  messageItem,
  messageList,
  previewOf,
  type ConversationRecord,
  type MessageRecord,
  type RecentTurn,
} from './records.ts';

/** The stored item carries a revision: every write is conditional on the one it read. */
export type Stored = ConversationRecord & { revision: number };

/** A change to one conversation, computed from the conversation as read. */
export interface Plan {
  next: ConversationRecord;
  messages?: MessageRecord[];
  change?: Change | null;
  writes?: Write[];
}

const ATTEMPTS = 6;
/** What the agent reads of the conversation so far: its last messages, at most this many characters. */
const RECENT_MESSAGES = 12;
const RECENT_CHARS = 24_000;

export async function readConversation(tenantId: string, id: string, consistent = false): Promise<Stored> {
  const c = await get<Stored>(conversationKey(tenantId, id), { consistent });
  if (!c || c.erasedAt) throw notFound('Conversation');
  return c;
}

const isClosed = (c: Pick<ConversationRecord, 'status'>) => c.status === 'Closed';

/**
 * A conversation's messages in order (one Query on the id range): those after `after`, at most
 * `limit`; `newest`: the last `limit` instead of the first (still in order); `keysOnly` reads the keys alone (an erase).
 */
export async function readMessages<T = MessageRecord>(
  tenantId: string,
  id: string,
  opts: { after?: string; limit?: number; keysOnly?: boolean; newest?: boolean } = {},
): Promise<T[]> {
  const items = await queryItems<T>(
    {
      TableName: config.tableName,
      KeyConditionExpression: opts.after ? 'pk = :pk AND sk > :after' : 'pk = :pk',
      ExpressionAttributeValues: { ':pk': messageList(tenantId, id), ...(opts.after ? { ':after': opts.after } : {}) },
      ...(opts.keysOnly ? { ProjectionExpression: 'pk, sk' } : {}),
      ...(opts.newest ? { ScanIndexForward: false } : {}),
    },
    opts.limit,
  );
  return opts.newest ? items.reverse() : items;
}

/** The analytics conversation record of a conversation that closes now (spec: exactly once). */
const closingRecord = (c: ConversationRecord) => ({
  id: c.id,
  tenantId: c.tenantId,
  agentId: c.agentId,
  startedAt: c.startedAt,
  durationSeconds: Math.max(0, (Date.parse(c.closedAt ?? c.lastMessageAt) - Date.parse(c.startedAt)) / 1000),
  resolved: c.resolved,
  escalated: c.escalated,
  escalationReason: c.escalationReason,
  csat: c.csat,
});

/** Visitor, agent and human messages, as the model reads them (a person's reply is the assistant's side). */
function withRecent(c: ConversationRecord, messages: readonly MessageRecord[]): RecentTurn[] {
  const added = messages
    .filter((m) => m.role !== 'system' && m.text)
    .map((m): RecentTurn => ({ role: m.role === 'visitor' ? 'user' : 'assistant', content: m.text }));
  const all = [...c.recent, ...added].slice(-RECENT_MESSAGES);
  while (all.length > 1 && all.reduce((n, m) => n + m.content.length, 0) > RECENT_CHARS) all.shift();
  return all;
}

/**
 * Applies `plan` to the conversation as stored: the conversation item (replaced under the revision it
 * was read at), its new messages, its audit entry and any writes of the caller, in one transaction.
 * When someone else wrote meanwhile, the conversation is read again and the plan made again; a plan
 * may throw (the state no longer allows it). A conversation that closes here carries its analytics
 * record in the same transaction.
 */
export async function mutate(
  tenantId: string,
  id: string,
  plan: (current: Stored) => Plan | Promise<Plan>,
  first?: Stored,
): Promise<{ conversation: Stored; messages: MessageRecord[] }> {
  let current = first ?? (await readConversation(tenantId, id, true));
  for (let attempt = 1; ; attempt++) {
    // Someone else wrote since `current` was read: the plan is made again, and the last attempt says so.
    const stale = conflict('The conversation changed meanwhile');
    const p = await plan(current);
    const messages = p.messages ?? [];
    if (p.next === current && !messages.length && !p.writes?.length) return { conversation: current, messages };
    const shown = messages.filter((m) => m.role !== 'system').at(-1);
    const visitorLast = messages.filter((m) => m.role === 'visitor').at(-1);
    const next: Stored = {
      ...p.next,
      lastMessage: shown ? previewOf(shown) : (p.next.lastMessage ?? null),
      lastVisitorMessageAt: visitorLast?.createdAt ?? p.next.lastVisitorMessageAt ?? null,
      recent: withRecent(p.next, messages),
      messageCount: current.messageCount + messages.length,
      revision: current.revision + 1,
    };
    const closing = isClosed(next) && !isClosed(current);
    const variant = variantMoves(current, next, messages);
    const writes: Write[] = [
      orConflict(putItem(conversationItem(next), 'revision = :revision', { ':revision': current.revision }), stale),
      ...messages.map((m) => putNew(messageItem(m))),
      ...(closing ? conversationRecordWrites(closingRecord(next)) : []),
      ...(p.writes ?? []),
      ...variant.writes,
    ];
    try {
      await commitChange(writes, p.change ?? null);
      await announce(current, next, messages);
      await afterVariantMoves(tenantId, variant.check);
      return { conversation: next, messages };
    } catch (err) {
      if (err !== stale || attempt >= ATTEMPTS) throw err;
      // Writers that collided read again at different moments, not in lockstep.
      await sleep(Math.random() * 10 * attempt);
      current = await readConversation(tenantId, id, true);
    }
  }
}

/** The first conversation write: the item at revision 1. */
export const newConversationWrites = (c: ConversationRecord): Write[] => [
  putNew(conversationItem({ ...c, revision: 1 } as Stored)),
];
