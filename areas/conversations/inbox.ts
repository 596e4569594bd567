import type { Principal } from '#shared/auth/access-token.ts';
import { deleteAll } from '#shared/data/batch.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, deleteItem } from '#shared/data/commit.ts';
import { keyOf } from '#shared/data/keys.ts';
import { toPage } from '#shared/http/responses.ts';
import { getUser } from '#areas/identity/for-conversations.ts';
import { deliverToChannel } from './delivery.ts';
import { conversationClosed, invalidStatusTransition } from './errors.ts';
import { changeStatus, conversationChange, moved, REASONS, systemMessage, takesMessages } from './lifecycle.ts';
import {
  conversationKey,
  conversationList,
  isUnread,
  newMessage,
  type ConversationRecord,
  type ConversationStatus,
  type MessageRecord,
} from './records.ts';
import { mutate, readConversation, readMessages } from './store.ts';

/** Conversation list item (spec "AI conversations"). */
const toListItem = (c: ConversationRecord) => ({
  id: c.id,
  agentId: c.agentId,
  agentName: c.agentName,
  channel: c.channel,
  status: c.status,
  visitor: c.visitor,
  messageCount: c.messageCount,
  escalationReason: c.escalationReason,
  csat: c.csat,
  startedAt: c.startedAt,
  lastMessageAt: c.lastMessageAt,
  closedAt: c.closedAt,
  lastMessage: c.lastMessage ?? null,
  unread: isUnread(c),
});

const toMessage = (m: MessageRecord) => ({
  id: m.id,
  role: m.role,
  text: m.text,
  citations: m.citations,
  toolCalls: m.toolCalls,
  tokens: m.tokens,
  createdAt: m.createdAt,
});

export interface ListQuery {
  page: number;
  pageSize: number;
  agentId?: string;
  status?: ConversationStatus;
  channel?: string;
  startDate?: string;
  endDate?: string;
  search?: string;
}

/** A page of the tenant's conversations, newest first; the dates bound the start (the sort key's time). */
export async function listConversations(tenantId: string, q: ListQuery) {
  const sortRange =
    q.startDate || q.endDate
      ? { from: q.startDate ?? '0000', to: `${q.endDate ?? '9999-12-31'}T23:59:59.999Z#~` }
      : undefined;
  const { items, totalCount } = await listNewestFirst<ConversationRecord>(conversationList(tenantId), {
    page: q.page,
    pageSize: q.pageSize,
    search: q.search,
    where: { agentId: q.agentId, status: q.status, channel: q.channel } as Record<string, string>,
    sortRange,
  });
  return toPage(items.map(toListItem), totalCount, q.page, q.pageSize);
}

const detailOf = (c: ConversationRecord, messages: MessageRecord[]) => ({
  ...toListItem(c),
  widgetId: c.widgetId,
  channelId: c.channelId,
  locale: c.locale,
  escalated: c.escalated,
  resolved: c.resolved,
  csatComment: c.csatComment,
  messages: messages.map(toMessage),
});

const load = (tenantId: string, id: string) =>
  Promise.all([readConversation(tenantId, id), readMessages(tenantId, id)]);

/** The conversation with every message, in order: one GetItem and one Query. */
export async function conversationDetail(tenantId: string, id: string) {
  const [c, messages] = await load(tenantId, id);
  return detailOf(c, messages);
}

/**
 * A person's reply (route 8): while Open or Escalated; in an Open conversation the person takes it
 * over (Escalated, so the agent falls silent). Delivered to the widget by its poll, or to the channel.
 */
export async function staffReply(tenantId: string, id: string, text: string, actor: Principal) {
  const author = await getUser(actor.tenantId, actor.userId);
  const message = newMessage({ tenantId, id }, 'human', text, {
    authorId: actor.userId,
    authorName: author?.firstName.trim() || null,
  });
  const out = await mutate(tenantId, id, (current) => {
    if (!takesMessages(current)) throw conversationClosed();
    const next =
      current.status === 'Open'
        ? moved(current, 'Escalated', { reason: REASONS.staff, now: Date.now() })
        : { ...current };
    next.lastMessageAt = message.createdAt;
    // Whoever answers has read what the visitor wrote.
    next.staffSeenAt = message.createdAt;
    return {
      next,
      messages: [message],
      change: conversationChange(current, actor, 'ConversationHumanReply', {
        messageId: message.id,
        ...(current.status === 'Open' ? { from: 'Open', to: 'Escalated' } : {}),
      }),
    };
  });
  await deliverToChannel(out.conversation, message);
  return toMessage(message);
}

/**
 * A page of the conversation's messages, oldest first, after the message `after` (from the start
 * when absent): one Query that reads one more than the page to say whether more follow.
 */
export async function messagesPage(tenantId: string, id: string, q: { after?: string; pageSize: number }) {
  const [, items] = await Promise.all([
    readConversation(tenantId, id),
    readMessages(tenantId, id, { after: q.after, limit: q.pageSize + 1 }),
  ]);
  const page = items.slice(0, q.pageSize);
  const hasMore = items.length > q.pageSize;
  return { items: page.map(toMessage), hasMore, nextAfter: hasMore ? page.at(-1)!.id : null };
}

/** Staff mark what the visitor wrote as read (the list's `unread` clears for the tenant's staff). */
export async function markRead(tenantId: string, id: string, actor: Principal) {
  const out = await mutate(tenantId, id, (current) => {
    if (!isUnread(current)) return { next: current };
    const next = { ...current, staffSeenAt: current.lastVisitorMessageAt ?? null };
    return {
      next,
      change: conversationChange(current, actor, 'ConversationRead', { staffSeenAt: next.staffSeenAt }),
    };
  });
  return toListItem(out.conversation);
}

/**
 * Staff hand an escalated conversation back to the agent: Open again, its turn count from zero (so
 * the turn limit does not hand it straight back), a note in the transcript. Only from Escalated.
 */
export async function handBack(tenantId: string, id: string, actor: Principal) {
  const out = await mutate(tenantId, id, (current) => {
    if (current.status !== 'Escalated') {
      if (current.status === 'Closed') throw conversationClosed();
      throw invalidStatusTransition(current.status, 'Open');
    }
    const now = Date.now();
    const next: ConversationRecord = { ...current, status: 'Open', agentTurns: 0 };
    return {
      next,
      messages: [systemMessage(next, 'Handed back to the agent', now)],
      change: conversationChange(current, actor, 'ConversationHandedBack', { from: 'Escalated', to: 'Open' }),
    };
  });
  return toListItem(out.conversation);
}

/** Staff set the status (route 9): the allowed moves only; the same status again changes nothing. */
export async function setStatus(
  tenantId: string,
  id: string,
  body: { status: ConversationStatus; reason?: string | null },
  actor: Principal,
) {
  const current = await readConversation(tenantId, id, true);
  const out = await changeStatus(current, body.status, { reason: body.reason, actor });
  return toListItem(out.conversation);
}

const line = (m: MessageRecord) => {
  const who = { visitor: 'Visitor', agent: 'Agent', human: 'Staff', system: 'System' }[m.role];
  const sources = m.citations.length
    ? `\n\n  Sources: ${m.citations.map((c, i) => `[${i + 1}] ${c.documentTitle}`).join('; ')}`
    : '';
  return `**${who}** (${m.createdAt}):\n\n${m.text.replace(/\n/g, '\n> ').replace(/^/, '> ')}${sources}\n`;
};

/** The transcript as a file's content (route 10): JSON of the detail, or Markdown for people. */
export async function transcript(tenantId: string, id: string, format: 'json' | 'markdown') {
  const [c, messages] = await load(tenantId, id);
  const detail = detailOf(c, messages);
  if (format === 'json') {
    return {
      conversationId: id,
      format,
      fileName: `conversation-${id}.json`,
      contentType: 'application/json',
      content: JSON.stringify(detail, null, 2),
    };
  }
  const head = [
    `# Conversation ${id}`,
    '',
    `- Agent: ${detail.agentName}`,
    `- Channel: ${detail.channel}`,
    `- Status: ${detail.status}`,
    `- Visitor: ${detail.visitor ? [detail.visitor.name, detail.visitor.email].filter(Boolean).join(' ') || '-' : '-'}`,
    `- Started: ${detail.startedAt}`,
    ...(detail.closedAt ? [`- Closed: ${detail.closedAt}`] : []),
    ...(detail.escalationReason ? [`- Escalation: ${detail.escalationReason}`] : []),
    ...(detail.csat !== null
      ? [`- Rating: ${detail.csat}/5${detail.csatComment ? ` (${detail.csatComment})` : ''}`]
      : []),
    '',
  ];
  return {
    conversationId: id,
    format,
    fileName: `conversation-${id}.md`,
    contentType: 'text/markdown',
    content: [...head, ...messages.map(line)].join('\n'),
  };
}

/**
 * Erase (route 11, TenantOwner): the messages and the conversation are deleted. A conversation not
 * yet closed is closed first, so its analytics record is sent; what analytics counted stays.
 */
export async function eraseConversation(tenantId: string, id: string, actor: Principal) {
  const current = await readConversation(tenantId, id, true);
  if (current.status !== 'Closed') await changeStatus(current, 'Closed', { actor });
  const messages = await readMessages<{ pk: string; sk: string }>(tenantId, id, { keysOnly: true });
  await deleteAll(messages.map(keyOf));
  await commitChange(
    [deleteItem(conversationKey(tenantId, id), 'attribute_exists(pk)'), bumpCounter(conversationList(tenantId), -1)],
    conversationChange(current, actor, 'ConversationErased', { messages: messages.length }),
    { onConflict: 'The conversation was erased meanwhile' },
  );
}
