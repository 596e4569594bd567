import { randomUUID } from 'node:crypto';
import { normalOrigin, publishedAgent, widgetByKey } from '#areas/agents/for-conversations.ts';
import { requireAgents } from '#areas/identity/for-conversations.ts';
import { bumpCounter } from '#shared/data/collection.ts';
import { commitChange } from '#shared/data/commit.ts';
import { ApiError, unauthorized } from '#shared/http/errors.ts';
import { conversationClosed, feedbackAlreadyGiven, originNotAllowed, widgetInactive } from './errors.ts';
import { changeStatus, conversationChange, takesMessages } from './lifecycle.ts';
import {
  conversationList,
  newConversation,
  type ConversationRecord,
  type MessageRecord,
  type Visitor,
} from './records.ts';
import { newSession, sessionHolds, type SessionClaim } from './session.ts';
import { startVariant } from './variant.ts';
import { newConversationWrites, readConversation, readMessages, type Stored } from './store.ts';

const invalidSession = () => unauthorized('The widget session is invalid or has expired');

/**
 * A widget session (spec "AI conversations" route 1): the widget's public key from one of its allowed
 * origins, the tenant's plan still including agents, the widget active and its agent published. The
 * conversation is created with the session's hash; the token is shown once.
 */
export async function startSession(
  body: { widgetKey: string; visitor?: { name?: string | null; email?: string | null } | null; locale?: string | null },
  origin: string | undefined,
) {
  const widget = await widgetByKey(body.widgetKey);
  if (!widget) throw unauthorized('Unknown widget key');
  const from = origin ? normalOrigin(origin) : undefined;
  if (!from || !widget.allowedOrigins.includes(from)) throw originNotAllowed();
  const tenantId = widget.tenantId;
  await requireAgents(tenantId);
  if (!widget.isActive) throw widgetInactive();
  const agent = await publishedAgent(tenantId, widget.agentId);
  const now = Date.now();
  const at = new Date(now).toISOString();
  const id = randomUUID();
  const session = newSession(tenantId, id, now);
  const visitor: Visitor | null = body.visitor
    ? { name: body.visitor.name ?? null, email: body.visitor.email ?? null }
    : null;
  const ab = await startVariant(tenantId, agent, id);
  const conversation = newConversation(
    agent,
    {
      id,
      tenantId,
      channel: 'widget',
      widgetId: widget.widgetId,
      visitor,
      locale: body.locale ?? null,
      sessionHash: session.hash,
      sessionExpiresAt: session.expiresAt,
      abVariant: ab.abVariant,
    },
    at,
  );
  await commitChange(
    [...newConversationWrites(conversation), bumpCounter(conversationList(tenantId), 1), ...ab.writes],
    conversationChange(conversation, null, 'ConversationStarted', {
      widgetId: widget.widgetId,
      agentId: agent.agentId,
      ...(ab.abVariant ? { variant: ab.abVariant.variant, promptVersionId: ab.abVariant.promptVersionId } : {}),
    }),
  );
  return {
    conversationId: id,
    sessionToken: session.token,
    expiresAt: session.expiresAt,
    agent: { name: agent.name, welcomeMessage: agent.welcomeMessage },
    theme: widget.theme,
  };
}

/** The conversation a session token opens: one GetItem, the secret compared in constant time. */
export async function openSession(claim: SessionClaim | null, consistent = false): Promise<Stored> {
  if (!claim) throw invalidSession();
  let c: Stored;
  try {
    c = await readConversation(claim.tenantId, claim.conversationId, consistent);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw invalidSession();
    throw err;
  }
  if (!sessionHolds(claim, c)) throw invalidSession();
  return c;
}

/** What a visitor sees of a message: no tool calls or token counts (those are the staff's). */
export const toVisitorMessage = (m: MessageRecord) => ({
  id: m.id,
  role: m.role,
  text: m.text,
  citations: m.citations,
  // A person's reply carries who wrote it; the agent's and the visitor's carry null.
  authorName: m.role === 'human' ? (m.authorName ?? null) : null,
  createdAt: m.createdAt,
});

const MAX_SINCE = 200;

/** Messages after `after` (a message id; all when absent), oldest first: one Query on the id range. */
export async function messagesSince(c: Stored, after: string | undefined) {
  const items = await readMessages(c.tenantId, c.id, { after, limit: MAX_SINCE });
  return items.map(toVisitorMessage);
}

const visitorView = (c: ConversationRecord) => ({
  conversationId: c.id,
  status: c.status,
  escalationReason: c.escalationReason,
  csat: c.csat,
});

/** The visitor asks for a person (route 4): Escalated with the reason; asking again changes nothing. */
export async function visitorEscalates(c: Stored, reason: string | null | undefined) {
  if (!takesMessages(c)) throw conversationClosed();
  const out = await changeStatus(c, 'Escalated', { reason, actor: null });
  return visitorView(out.conversation);
}

/** The visitor's rating (route 5): once; it closes the conversation, whose analytics record carries it. */
export async function visitorFeedback(c: Stored, body: { csat: number; comment?: string | null }) {
  if (c.csat !== null) throw feedbackAlreadyGiven();
  if (c.status === 'Closed') throw conversationClosed();
  const out = await changeStatus(c, 'Closed', {
    actor: null,
    extra: (next) => {
      if (next.csat !== null) throw feedbackAlreadyGiven();
      return { ...next, csat: body.csat, csatComment: body.comment ?? null };
    },
  });
  return visitorView(out.conversation);
}
