import { randomUUID } from 'node:crypto';
import {
  agentUnavailable,
  countRequested,
  pauseWrites,
  publishedAgent,
  runTurnStream,
  type TurnEvent,
  type TurnResult,
  type AgentSnapshot,
} from '#areas/agents/for-conversations.ts';
import { agentEventWrite } from '#areas/analytics/for-conversations.ts';
import { orConflict, type Write } from '#shared/data/commit.ts';
import { claim, claimItem, doneItem, held, readClaim, releaseItem, resultOf } from '#shared/data/idempotency.ts';
import { get } from '#shared/data/read.ts';
import { tokenLimitReached } from '#areas/llm-gateway/for-conversations.ts';
import { logger } from '#shared/runtime/logger.ts';
import { conversationClosed, requestInProgress } from './errors.ts';
import { moved, REASONS, systemMessage, takesMessages } from './lifecycle.ts';
import {
  idempotencyKey,
  messageKey,
  newMessage,
  searchTextOf,
  type ConversationRecord,
  type MessageRecord,
} from './records.ts';
import { mutate, type Stored } from './store.ts';
import { giveBackTurn, requireFreeTurn, takeConversationTurn, takeTurn, whenTurnFree } from './turn-lease.ts';
import { servedBy } from './variant.ts';

/** What a visitor's message gets back: the agent's answer (null while a person has the conversation). */
export interface TurnAnswer {
  message: MessageRecord | null;
  citations: MessageRecord['citations'];
  escalated: boolean;
  /** The answer tells the visitor a person will confirm an action before it happens. */
  awaitingApproval: boolean;
}

export interface VisitorInput {
  text: string;
  /** The widget's key for this message: the same request retried is stored and answered once. */
  idempotencyKey?: string;
  requestId: string;
  /** What the answer's tokens add to the caps' counters (visitor-caps.ts), written with the answer. */
  spend?: (tokens: number) => Write[];
  /** Throws to refuse the turn, checked in the write that takes the conversation's turn (its turn cap). */
  admit?: (current: ConversationRecord) => void;
}

/** What a turn's claim keeps: the visitor's message, stored once, that a retry answers. */
interface Held {
  visitorMessageId: string;
}

/** How a claimed turn ended: the agent's answer, or none when a person has the conversation. */
interface Outcome {
  answerId: string | null;
  escalated: boolean;
}

const CLAIM = {
  /** A retry that finds its first attempt still running within this long waits for it (409), after it runs again. */
  leaseMs: 150_000,
  ttlSeconds: 2 * 86_400,
};
const FAILED = 'The agent could not answer this message. Send it again, or ask for a person.';

const claimKey = (c: Stored, key: string) => idempotencyKey(c.tenantId, c.id, key);
const ended = (key: string, c: Stored, outcome: Outcome) => doneItem(claimKey(c, key), outcome);
/** Written with the visitor's message; done at once when a person has the conversation (no turn runs). */
const firstClaim = (c: Stored, key: string, visitor: MessageRecord) =>
  claimItem<Held>(
    claimKey(c, key),
    { ...CLAIM, data: { visitorMessageId: visitor.id } },
    c.status === 'Escalated' ? { result: { answerId: null, escalated: true } satisfies Outcome } : undefined,
  );

const answerOf = (message: MessageRecord | null, escalated: boolean, awaitingApproval = false): TurnAnswer => ({
  message,
  citations: message?.citations ?? [],
  escalated,
  awaitingApproval,
});

type Start =
  | { kind: 'answered'; answer: TurnAnswer }
  | { kind: 'run'; conversation: Stored; visitor: MessageRecord; agent: AgentSnapshot | null; lease: string };

/** A retried message: its stored answer, a wait while the first attempt runs, or the turn again. */
async function retried(
  first: Stored,
  key: string,
  agent: AgentSnapshot | null,
  lease: string,
  admit?: VisitorInput['admit'],
): Promise<Start> {
  const prior = await readClaim<Held>(claimKey(first, key));
  if (!prior?.data) throw requestInProgress();
  if (prior.status === 'done') {
    const { answerId, escalated } = resultOf<Outcome>(prior);
    const answer = answerId ? await get<MessageRecord>(messageKey(first.tenantId, first.id, answerId)) : null;
    return { kind: 'answered', answer: answerOf(answer ?? null, escalated) };
  }
  if (held(prior)) throw requestInProgress();
  const visitor = await get<MessageRecord>(messageKey(first.tenantId, first.id, prior.data.visitorMessageId));
  if (!visitor) throw requestInProgress();
  // Released by a failure, or its lease ran out: this attempt takes it over, one attempt at a time.
  if ((await claim(claimKey(first, key), { ...CLAIM, data: prior.data })).kind !== 'claimed') throw requestInProgress();
  if (!agent) return { kind: 'run', conversation: first, visitor, agent, lease };
  return { kind: 'run', conversation: await takeConversationTurn(first, lease, admit), visitor, agent, lease };
}

/**
 * The visitor's message stored before the model is called, with its idempotency claim as a
 * condition of the same write: a first attempt reads no claim; a retry (the claim exists) gets the
 * stored answer, or runs the turn again on the message already stored when the first one failed.
 * A message the agent will answer takes the conversation's turn in the same write, waiting while an
 * earlier message's turn runs; its id and time are made when it is stored, so it follows that answer.
 */
async function storeVisitorMessage(first: Stored, input: VisitorInput): Promise<Start> {
  if (!takesMessages(first)) throw conversationClosed();
  const key = input.idempotencyKey;
  // The agent answers only while the conversation is Open; a person's conversation just takes the message.
  const agent =
    first.status === 'Open'
      ? servedBy(await publishedAgent(first.tenantId, first.agentId, first.agentVersion), first)
      : null;
  const lease = randomUUID();
  try {
    return await whenTurnFree(first, async (c) => {
      let visitor: MessageRecord | undefined;
      const out = await mutate(
        c.tenantId,
        c.id,
        (current) => {
          if (!takesMessages(current)) throw conversationClosed();
          const answering = !!agent && current.status === 'Open';
          if (answering) {
            requireFreeTurn(current);
            input.admit?.(current);
          }
          visitor = newMessage(current, 'visitor', input.text);
          return {
            next: {
              ...current,
              ...(answering ? takeTurn(lease) : {}),
              lastMessageAt: visitor.createdAt,
              searchText: current.recent.some((m) => m.role === 'user')
                ? current.searchText
                : searchTextOf(current, visitor.text),
            },
            messages: [visitor],
            writes: key ? [orConflict(firstClaim(current, key, visitor), requestInProgress())] : [],
          };
        },
        c,
      );
      return { kind: 'run', conversation: out.conversation, visitor: visitor!, agent, lease } satisfies Start;
    });
  } catch (err) {
    if (!requestInProgress.is(err) || !key) throw err;
    return retried(first, key, agent, lease, input.admit);
  }
}

/**
 * The agent's answer stored after the model: the message with its citations and tool calls, the
 * turn counted, and the escalation the turn asked for (the model's escalate_to_human, no source
 * above the threshold, the turn limit), in one write.
 */
async function storeAnswer(
  c: Stored,
  agent: AgentSnapshot,
  visitor: MessageRecord,
  result: TurnResult,
  input: VisitorInput,
  lease: string,
) {
  const key = input.idempotencyKey;
  const answer = newMessage(c, 'agent', result.message, {
    after: visitor.id,
    citations: result.citations,
    toolCalls: result.toolCalls.map(({ name, status, durationMs }) => ({ name, status, durationMs })),
    tokens: result.usage.totalTokens,
  });
  const held = result.paused
    ? pauseWrites(c.tenantId, { kind: 'conversation', id: c.id }, agent, result.paused, requestedBy(c))
    : null;
  const out = await mutate(
    c.tenantId,
    c.id,
    (current) => {
      const turns = current.agentTurns + 1;
      const limit = agent.escalation.maxTurnsBeforeEscalation;
      const reason =
        result.escalate?.reason ??
        (limit && turns >= limit && agent.escalation.enabled ? REASONS.turnLimit : undefined);
      let next: ConversationRecord = {
        ...current,
        ...giveBackTurn(current, lease),
        agentTurns: turns,
        lastMessageAt: answer.createdAt,
        untrusted: !!current.untrusted || result.untrusted,
      };
      // The visitor may have escalated while the model ran: the answer is kept, the state is theirs.
      if (reason && next.status === 'Open') next = moved(next, 'Escalated', { reason, now: Date.now() });
      const escalated = next.status === 'Escalated';
      return {
        next,
        messages: [answer],
        writes: [
          ...(key ? [ended(key, current, { answerId: answer.id, escalated })] : []),
          ...(held
            ? [...held.writes, countRequested(c.tenantId, agent.agentId, held.actions.length, answer.createdAt)]
            : []),
          ...(input.spend?.(result.usage.totalTokens) ?? []),
          ...(result.declined ? [agentEventWrite(c.tenantId, agent.agentId, 'declinedOffTopic')] : []),
        ],
      };
    },
    // As the visitor's write left it: a write meanwhile fails the revision and is read then.
    c,
  );
  return answerOf(answer, out.conversation.status === 'Escalated', !!held);
}

/** Who asked, as staff see it beside a held call: the visitor's name, or the channel user. */
export const requestedBy = (c: ConversationRecord) => c.visitor?.name ?? c.channelUser ?? 'the visitor';

/**
 * A turn that failed leaves the visitor's message and a note in the transcript, the conversation
 * usable: a used-up token allowance hands it to a person (the visitor still hears 429); any other
 * failure is retried by sending the message again (same idempotency key: not stored twice).
 */
async function storeFailure(c: Stored, visitor: MessageRecord, err: unknown, lease: string, key?: string) {
  const exhausted = tokenLimitReached.is(err);
  try {
    await mutate(c.tenantId, c.id, (read) => {
      const now = Date.now();
      const current = { ...read, ...giveBackTurn(read, lease) };
      const next =
        exhausted && current.status === 'Open' ? moved(current, 'Escalated', { reason: REASONS.tokens, now }) : current;
      const note = exhausted ? 'The assistant is unavailable; a person will follow up.' : FAILED;
      return {
        next,
        messages: [systemMessage(next, note, now, visitor.id)],
        // A retry runs the turn again, unless a person has the conversation now.
        writes: key
          ? [
              next.status === 'Escalated'
                ? ended(key, current, { answerId: null, escalated: true })
                : releaseItem(claimKey(current, key)),
            ]
          : [],
      };
    });
  } catch (storeErr) {
    logger.error('turn failure not recorded', { conversationId: c.id, error: storeErr as Error });
  }
}

export type VisitorEvent = { type: 'text'; text: string } | { type: 'final'; answer: TurnAnswer };

/**
 * One visitor message and the agent's answer, as events: text deltas while the model writes (when
 * `stream`), then the stored answer. Errors before the first event are the request's status (the
 * caller pulls the first event before answering); the stored state is the same either way.
 */
export async function* visitorTurn(
  first: Stored,
  input: VisitorInput,
  opts: { stream?: boolean } = {},
): AsyncGenerator<VisitorEvent> {
  const start = await storeVisitorMessage(first, input);
  if (start.kind === 'answered') {
    yield { type: 'final', answer: start.answer };
    return;
  }
  const { conversation, visitor, agent, lease } = start;
  if (!agent || conversation.status !== 'Open') {
    yield { type: 'final', answer: answerOf(null, true) };
    return;
  }
  const events = runTurnStream(
    {
      tenantId: conversation.tenantId,
      conversationId: conversation.id,
      agent,
      messages: conversation.recent,
      visitor: conversation.visitor,
      caller: { kind: 'agent', agentId: agent.agentId },
      requestId: input.requestId,
      untrusted: !!conversation.untrusted,
    },
    { stream: opts.stream },
  );
  let answer: TurnAnswer;
  try {
    let final: TurnResult | undefined;
    for await (const e of events as AsyncIterable<TurnEvent>) {
      if (e.type === 'text') yield e;
      else final = e.result;
    }
    if (!final) throw agentUnavailable();
    answer = await storeAnswer(conversation, agent, visitor, final, input, lease);
  } catch (err) {
    // The model, a tool or the answer's write failed: the note and the turn's release in one write.
    await storeFailure(conversation, visitor, err, lease, input.idempotencyKey);
    throw err;
  }
  yield { type: 'final', answer };
}

/** The whole turn, for a JSON answer or a channel. */
export async function visitorTurnAnswer(first: Stored, input: VisitorInput): Promise<TurnAnswer> {
  for await (const e of visitorTurn(first, input)) if (e.type === 'final') return e.answer;
  throw agentUnavailable();
}
