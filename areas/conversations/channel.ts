import { publishedAgent, type AgentSnapshot } from '#areas/agents/for-conversations.ts';
import { channelById, type ChannelRecord } from '#areas/channels/for-conversations.ts';
import { requireAgents } from '#areas/identity/for-conversations.ts';
import { bumpCounter } from '#shared/data/collection.ts';
import { commitChange, orConflict, putItem, putNew } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { ApiError, conflict } from '#shared/http/errors.ts';
import { logger } from '#shared/runtime/logger.ts';
import { deliverToChannel } from './delivery.ts';
import { CAP_MESSAGE, conversationBusy, requestInProgress } from './errors.ts';
import { conversationChange, systemMessage } from './lifecycle.ts';
import {
  channelSpend,
  channelUserKey,
  conversationList,
  newConversation,
  type ConversationRecord,
  type Visitor,
} from './records.ts';
import { mutate, newConversationWrites, readConversation, type Stored } from './store.ts';
import { startVariant } from './variant.ts';
import { visitorTurnAnswer, type TurnAnswer } from './turn.ts';
import { holdCaps, type CapHolds } from './cap-holds.ts';
import { capNoticeWrite, channelSpendWrites, countCapReached } from './visitor-caps.ts';

/** A person's message on a channel, as the webhook verified and queued it (the connector's CHANNEL_TURN). */
export interface ChannelMessage {
  tenantId: string;
  channelId: string;
  eventId: string;
  sender: string;
  senderName?: string;
  text: string;
  replyTo: NonNullable<ConversationRecord['replyTo']>;
  receivedAt: string;
}

/** What `channelUserKey` holds: the person's current conversation with the connection. */
interface ChannelUser {
  conversationId: string;
}

/**
 * One channel message's turn (spec "AI connector": one conversation per channel user, reopened while
 * not closed): the person's conversation with this connection is found, or started when there is
 * none or it can no longer take messages (Resolved or Closed) or the connection now serves another
 * agent; its reply context becomes this message's; the agent's turn runs (the platform's event id is
 * the idempotency key, so a redelivered message is stored and answered once); the answer is queued
 * on the channel. An inactive connection, a plan without agents or an unpublished agent runs no turn
 * (`skipped`: the connector gives the platform's event back, so a redelivery is taken again).
 */
export async function runChannelTurn(m: ChannelMessage, requestId: string): Promise<'answered' | 'skipped'> {
  const found = await channelById(m.channelId);
  // The lookup names the tenant: a message queued for one tenant's connection never reaches another's.
  if (!found || found.tenantId !== m.tenantId) return skip(m, 'connection deleted');
  const channel = found.connection;
  if (!channel.isActive) return skip(m, 'connection inactive');
  let conversation: Stored;
  try {
    await requireAgents(m.tenantId);
    conversation = await conversationFor(channel, m);
  } catch (err) {
    if (refusal(err)) return skip(m, err.code);
    throw err;
  }
  const holds = await holdOrTell(channel, conversation);
  if (holds === 'reached') return skip(m, 'daily token cap reached');
  let answer: TurnAnswer;
  let settled = false;
  try {
    answer = await visitorTurnAnswer(conversation, {
      text: m.text.slice(0, 4000),
      idempotencyKey: `channel:${m.eventId}`.slice(0, 300),
      requestId,
      spend: (tokens) => {
        settled = true;
        return holds?.settle(tokens) ?? channelSpendWrites(conversation, tokens);
      },
    });
  } catch (err) {
    settled = false;
    // Refusals (an exhausted allowance escalates the conversation; an agent unpublished meanwhile)
    // are recorded in the transcript by the turn and would fail again; anything else is retried.
    if (refusal(err)) return skip(m, err.code);
    throw err;
  } finally {
    if (holds && !settled) await holds.release();
  }
  if (answer.message) await deliverToChannel(conversation, answer.message);
  return 'answered';
}

/**
 * Codes that say another writer got there first, not that the message is refused: the queue delivers
 * the message again (in its group's order), where the write is made on what that writer left.
 */
const RETRIED = new Set<string>([conflict.code, requestInProgress.code, conversationBusy.code]);

/** A refusal the same message would meet again: it is not answered, and not retried. */
const refusal = (err: unknown): err is ApiError =>
  err instanceof ApiError && err.status < 500 && !RETRIED.has(err.code);

/**
 * The person's daily cap held for this turn (settled with its answer), or, past the cap, no turn:
 * they are told kindly, once a day (the note is kept in the transcript for staff), and each refused
 * message is counted on the agent's day.
 */
async function holdOrTell(channel: ChannelRecord, c: Stored): Promise<CapHolds | 'reached' | null> {
  const cap = channel.limits?.userDailyTokens ?? null;
  if (c.status !== 'Open' || cap === null) return null;
  // Held, not only checked: a redelivered or reordered message must not run beside another turn of the person's.
  const held = await holdCaps([{ key: channelSpend(c, Date.now()), cap, kind: 'userDailyTokens' }]);
  if (!('reached' in held)) return held;
  await countCapReached(c.tenantId, c.agentId, 'userDailyTokens');
  const note = systemMessage(c, CAP_MESSAGE, Date.now());
  try {
    await mutate(c.tenantId, c.id, (current) => ({ next: current, messages: [note], writes: [capNoticeWrite(c)] }));
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) return 'reached';
    throw err;
  }
  await deliverToChannel(c, note);
  return 'reached';
}

function skip(m: ChannelMessage, reason: string) {
  logger.info('channel message not answered', { channelId: m.channelId, eventId: m.eventId, reason });
  return 'skipped' as const;
}

const takesMessages = (c: ConversationRecord) => c.status === 'Open' || c.status === 'Escalated';

/** The person's conversation, with this message's reply context (a new thread or interaction token each time). */
async function conversationFor(channel: ChannelRecord, m: ChannelMessage): Promise<Stored> {
  const userKey = channelUserKey(m.tenantId, channel.id, m.sender);
  const pointer = await get<ChannelUser>(userKey, { consistent: true });
  if (pointer) {
    // Only a conversation that is gone (erased) is replaced; a failed read is retried by the queue.
    const current = await readConversation(m.tenantId, pointer.conversationId, true).catch((err) => {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    });
    if (current && takesMessages(current) && current.agentId === channel.agentId) {
      const out = await mutate(m.tenantId, current.id, (c) => ({ next: { ...c, replyTo: m.replyTo } }), current);
      return out.conversation;
    }
  }
  const agent = await publishedAgent(m.tenantId, channel.agentId);
  return startConversation(channel, agent, m, pointer?.conversationId ?? null);
}

/**
 * A new conversation on the channel, as a widget session starts one (widget.ts) without a session.
 * The person's pointer moves to it only from the conversation read: two first messages racing start
 * one conversation, and the loser continues the winner's.
 */
async function startConversation(
  channel: ChannelRecord,
  agent: AgentSnapshot,
  m: ChannelMessage,
  previous: string | null,
): Promise<Stored> {
  const tenantId = m.tenantId;
  const at = new Date().toISOString();
  const visitor: Visitor | null = m.senderName ? { name: m.senderName, email: null } : null;
  const id = crypto.randomUUID();
  const ab = await startVariant(tenantId, agent, id);
  const conversation = newConversation(
    agent,
    {
      id,
      tenantId,
      channel: channel.type,
      channelId: channel.id,
      channelUser: m.sender,
      replyTo: m.replyTo,
      visitor,
      locale: null,
      abVariant: ab.abVariant,
    },
    at,
  );
  const userKey = channelUserKey(tenantId, channel.id, m.sender);
  try {
    await commitChange(
      [
        ...newConversationWrites(conversation),
        bumpCounter(conversationList(tenantId), 1),
        ...ab.writes,
        orConflict(
          previous
            ? putItem({ ...userKey, conversationId: conversation.id }, 'conversationId = :previous', {
                ':previous': previous,
              })
            : putNew({ ...userKey, conversationId: conversation.id }),
          'RACE',
        ),
      ],
      conversationChange(conversation, null, 'ConversationStarted', {
        channel: channel.type,
        channelId: channel.id,
        agentId: agent.agentId,
        ...(ab.abVariant ? { variant: ab.abVariant.variant, promptVersionId: ab.abVariant.promptVersionId } : {}),
      }),
    );
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 409)) throw err;
    const winner = await get<ChannelUser>(userKey, { consistent: true });
    if (!winner) throw err;
    return readConversation(tenantId, winner.conversationId, true);
  }
  return { ...conversation, revision: 1 };
}
