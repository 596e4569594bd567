import { createHash } from 'node:crypto';
import { millisecondOf, timeOrderedId } from '#shared/data/time-ordered-id.ts';
import type { ConversationVariant } from '#areas/prompts/for-conversations.ts';
import { keys, outsideIdKeyPart, PLATFORM, type Key } from '#shared/data/keys.ts';

/**
 * The conversations area's records (docs/architecture.md, "Conversations"):
 * - a conversation is a tenant item `{t}#CONVERSATION` / id (the byId index finds it), listed newest
 *   first on gsi1 by its start; while it is not Closed it also sits on gsi2
 *   `PLATFORM#CONVERSATION_LIVE` by its last message, so the idle sweep finds the ones to close with
 *   one Query and no Scan;
 * - its messages live in `{t}#CONVERSATION#{id}#MESSAGE` / messageId, where a message id is a
 *   UUID version 7 (time first), so `after` is a key range and the transcript one Query in order;
 * - a widget's retried message is found by its idempotency key in `{t}#CONVERSATION#{id}#IDEM`.
 */
export const CONVERSATION_STATUSES = ['Open', 'Escalated', 'Resolved', 'Closed'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];
export const CONVERSATION_CHANNELS = ['widget', 'slack', 'teams', 'whatsapp', 'telegram', 'discord'] as const;
type ConversationChannel = (typeof CONVERSATION_CHANNELS)[number];
export const MESSAGE_ROLES = ['visitor', 'agent', 'human', 'system'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

export const conversationKey = (tenantId: string, id: string): Key => keys.tenantItem(tenantId, 'CONVERSATION', id);
export const conversationList = (tenantId: string) => keys.tenantCollection(tenantId, 'CONVERSATION');
export const messageList = (tenantId: string, conversationId: string) =>
  keys.childCollection(tenantId, 'CONVERSATION', conversationId, 'MESSAGE');
export const messageKey = (tenantId: string, conversationId: string, messageId: string): Key =>
  keys.childItem(tenantId, 'CONVERSATION', conversationId, 'MESSAGE', messageId);
export const idempotencyKey = (tenantId: string, conversationId: string, key: string): Key =>
  keys.childItem(tenantId, 'CONVERSATION', conversationId, 'IDEM', key);
/** The tenant's conversation settings (who hears of an escalation). */
export const conversationSettingsKey = (tenantId: string): Key =>
  keys.tenantItem(tenantId, 'CONVERSATION_SETTINGS', 'settings');

export interface ConversationSettings {
  /** Who is e-mailed when a conversation is escalated; null: the users holding `conversations:write`. */
  escalationEmails: string[] | null;
  updatedAt: string | null;
}

/** A channel user's conversation with one connection (the connector reopens it while not closed). */
export const channelUserKey = (tenantId: string, channelId: string, user: string): Key =>
  keys.childItem(tenantId, 'CHANNEL', channelId, 'USER', user);

const LIVE = `${PLATFORM}#CONVERSATION_LIVE`;
/** gsi2 entry of a conversation that is not Closed, by its last message (the idle sweep's order). */
const liveEntry = (lastMessageAt: string, c: { tenantId: string; id: string }) => ({
  gsi2pk: LIVE,
  gsi2sk: `${lastMessageAt}#${c.tenantId}#${c.id}`,
});
export const liveIndex = { pk: LIVE };

export interface Visitor {
  name: string | null;
  email: string | null;
}

interface Citation {
  chunkId: string;
  documentId: string;
  documentTitle: string;
  score: number;
}

interface ToolCallSummary {
  name: string;
  status: 'ok' | 'error';
  durationMs: number;
}

export interface MessageRecord {
  id: string;
  conversationId: string;
  tenantId: string;
  role: MessageRole;
  text: string;
  citations: Citation[];
  toolCalls: ToolCallSummary[];
  tokens: number;
  createdAt: string;
  /** Who wrote a human reply (staff user id). */
  authorId?: string | null;
  /** The staff member's first name as the visitor sees it, kept as it was when they wrote. */
  authorName?: string | null;
  /** Sent on a chat channel: what the platform reported of it (the connector's receipts). */
  deliveryStatus?: 'Sent' | 'Delivered' | 'Read' | 'Failed' | null;
  deliveryError?: string | null;
}

/** The last messages the agent reads as the conversation so far, kept on the conversation item. */
export interface RecentTurn {
  role: 'user' | 'assistant';
  content: string;
}

export interface ConversationRecord {
  id: string;
  tenantId: string;
  agentId: string;
  agentName: string;
  /** The published version the conversation runs (pinned when it starts). */
  agentVersion: number;
  channel: ConversationChannel;
  widgetId: string | null;
  channelId: string | null;
  /** The platform's id of the person on a channel (chat id, phone number). */
  channelUser: string | null;
  /** A channel conversation's reply context (recipient, thread, service URL) from its last inbound message. */
  replyTo?: { recipient: string; threadId?: string; serviceUrl?: string; interactionToken?: string } | null;
  status: ConversationStatus;
  visitor: Visitor | null;
  locale: string | null;
  messageCount: number;
  /** Visitor messages the agent answered: `maxTurnsBeforeEscalation` counts these. */
  agentTurns: number;
  escalated: boolean;
  escalationReason: string | null;
  resolved: boolean;
  csat: number | null;
  csatComment: string | null;
  startedAt: string;
  lastMessageAt: string;
  closedAt: string | null;
  recent: RecentTurn[];
  /** SHA-256 of the session token's secret (widget conversations). */
  sessionHash: string | null;
  sessionExpiresAt: string | null;
  /** Lowercase text the inbox search matches: visitor name and e-mail, agent, first visitor message. */
  searchText: string;
  erasedAt?: string | null;
  /**
   * An earlier turn's model input held material nobody vouches for (a tool result, a flagged chunk):
   * it may live on in the transcript the model reads, so side-effecting calls keep waiting for a person.
   */
  untrusted?: boolean;
  /** How many times it was escalated: an escalation's number names its one notice. */
  escalations?: number;
  /** The last visitor, agent or person's message, as the inbox list previews it. */
  lastMessage?: LastMessage | null;
  /** When the visitor last wrote, and when staff last read: unread while the first is later. */
  lastVisitorMessageAt?: string | null;
  staffSeenAt?: string | null;
  /** The A/B variant of its agent's prompt, decided once when it started (none outside a test). */
  abVariant?: ConversationVariant | null;
  /** The agent turn running now (turn-lease.ts): its id and when the lease ends (epoch ms). */
  turnLease?: { id: string; until: number } | null;
}

export interface LastMessage {
  role: MessageRole;
  text: string;
  createdAt: string;
}

const PREVIEW_CHARS = 200;
export const previewOf = (m: MessageRecord): LastMessage => ({
  role: m.role,
  text: m.text.length > PREVIEW_CHARS ? `${m.text.slice(0, PREVIEW_CHARS - 1)}…` : m.text,
  createdAt: m.createdAt,
});

/** Staff have not read what the visitor wrote last (a person's reply or a read marks it read). */
export const isUnread = (c: Pick<ConversationRecord, 'lastVisitorMessageAt' | 'staffSeenAt'>) =>
  !!c.lastVisitorMessageAt && c.lastVisitorMessageAt > (c.staffSeenAt ?? '');

export const conversationItem = (c: ConversationRecord) => ({
  ...conversationKey(c.tenantId, c.id),
  ...keys.newestFirst(conversationList(c.tenantId), c.startedAt, c.id),
  ...(c.status === 'Closed' ? {} : liveEntry(c.lastMessageAt, c)),
  ...c,
});

/** A conversation as it starts: Open, no messages, its agent's published version pinned. */
export function newConversation(
  agent: { agentId: string; name: string; version: number | null },
  c: Pick<ConversationRecord, 'id' | 'tenantId' | 'channel' | 'visitor' | 'locale'> &
    Partial<
      Pick<
        ConversationRecord,
        'widgetId' | 'channelId' | 'channelUser' | 'replyTo' | 'sessionHash' | 'sessionExpiresAt' | 'abVariant'
      >
    >,
  at: string,
): ConversationRecord {
  return {
    widgetId: null,
    channelId: null,
    channelUser: null,
    sessionHash: null,
    sessionExpiresAt: null,
    abVariant: null,
    ...c,
    agentId: agent.agentId,
    agentName: agent.name,
    agentVersion: agent.version ?? 0,
    status: 'Open',
    messageCount: 0,
    agentTurns: 0,
    escalated: false,
    escalationReason: null,
    resolved: false,
    csat: null,
    csatComment: null,
    startedAt: at,
    lastMessageAt: at,
    closedAt: null,
    recent: [],
    escalations: 0,
    lastMessage: null,
    lastVisitorMessageAt: null,
    staffSeenAt: null,
    searchText: searchTextOf({ visitor: c.visitor, agentName: agent.name }),
  };
}

/** The inbox's search text: visitor name and e-mail, agent name, the first visitor message. */
export const searchTextOf = (c: Pick<ConversationRecord, 'visitor' | 'agentName'>, first = '') =>
  [c.visitor?.name, c.visitor?.email, c.agentName, first.slice(0, 500)].filter(Boolean).join(' ').toLowerCase();

/**
 * A new message of the conversation; `after` puts it after that message (an answer after what it
 * answers). Its time is its id's, so the transcript's order and its times agree.
 */
export function newMessage(
  c: { tenantId: string; id: string },
  role: MessageRole,
  text: string,
  opts: Partial<Pick<MessageRecord, 'citations' | 'toolCalls' | 'tokens' | 'authorId' | 'authorName'>> & {
    now?: number;
    after?: string;
  } = {},
): MessageRecord {
  const { now, after, ...rest } = opts;
  const id = timeOrderedId(now ?? Date.now(), after);
  return {
    id,
    conversationId: c.id,
    tenantId: c.tenantId,
    role,
    text,
    citations: [],
    toolCalls: [],
    tokens: 0,
    ...rest,
    createdAt: new Date(millisecondOf(id)).toISOString(),
  };
}

export const messageItem = (m: MessageRecord) => ({ ...messageKey(m.tenantId, m.conversationId, m.id), ...m });

const utcDay = (now: number) => new Date(now).toISOString().slice(0, 10);
// Source addresses are kept only as a digest: a cap needs to tell them apart, not to know them.
const addressPart = (ip: string) => createHash('sha256').update(ip).digest('base64url').slice(0, 22);
const spendKey = (tenantId: string, id: string): Key => keys.tenantItem(tenantId, 'VISITOR_SPEND', id);

/** What a widget's visitors spent today, per source address today, and per session (visitor-caps.ts). */
export const widgetSpend = (c: ConversationRecord, ip: string, now: number) => {
  const day = utcDay(now);
  return {
    widget: spendKey(c.tenantId, `W#${c.widgetId}#${day}`),
    address: spendKey(c.tenantId, `A#${c.widgetId}#${addressPart(ip)}#${day}`),
    session: spendKey(c.tenantId, `S#${c.id}`),
  };
};
/** What one person on a channel spent today. */
export const channelSpend = (c: ConversationRecord, now: number) =>
  spendKey(c.tenantId, `C#${c.channelId}#${outsideIdKeyPart(c.channelUser ?? '')}#${utcDay(now)}`);
