import { agentUnavailable, widgetLimits } from '#areas/agents/for-conversations.ts';
import { ApiError } from '#shared/http/errors.ts';
import { idempotencyKey } from '#shared/http/idempotency-key.ts';
import { reply } from '#shared/http/responses.ts';
import { sseEvent } from '#shared/runtime/stream.ts';
import { invalidIdempotencyKey, widgetLimitReached } from './errors.ts';
import type { Stored } from './store.ts';
import { holdCaps, type CapHolds } from './cap-holds.ts';
import { widgetSpend, type ConversationRecord } from './records.ts';
import { countCapReached, secondsUntil, untilNextDay, type CapKind } from './visitor-caps.ts';
import type { SessionClaim } from './session.ts';
import { visitorTurn, type TurnAnswer, type VisitorEvent } from './turn.ts';
import { openSession, toVisitorMessage } from './widget.ts';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{1,100}$/;

const toWidgetAnswer = (a: TurnAnswer) => ({
  message: a.message ? toVisitorMessage(a.message) : null,
  citations: a.citations,
  escalated: a.escalated,
  awaitingApproval: a.awaitingApproval,
});

function idempotencyKeyOf(headers: Record<string, string | undefined>) {
  const key = idempotencyKey(headers);
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw invalidIdempotencyKey();
  }
  return key;
}

// Only an ApiError's text may reach the visitor; anything else is the agent not answering.
const errorEvent = (err: unknown) => {
  const e = err instanceof ApiError ? err : agentUnavailable();
  return sseEvent({ error: { code: e.code, message: e.message } }, 'error');
};

/**
 * Server-sent events of one turn: `{"delta"}` while the model writes, then the stored answer, then
 * `[DONE]`. A visitor who goes away does not stop the turn: the rest runs and the answer is stored.
 */
async function* events(first: IteratorResult<VisitorEvent>, rest: AsyncGenerator<VisitorEvent>) {
  let done = false;
  try {
    for (let e = first; !e.done; e = await rest.next()) {
      const event = e.value;
      yield event.type === 'text' ? sseEvent({ delta: event.text }) : sseEvent(toWidgetAnswer(event.answer));
    }
    done = true;
    yield sseEvent('[DONE]');
  } catch (err) {
    done = true;
    yield errorEvent(err);
  } finally {
    if (!done) for await (const _ of rest);
  }
}

type Limits = Awaited<ReturnType<typeof widgetLimits>>;

/** The 429 of a cap (counted on the agent's day for analytics). */
async function capRefusal(c: Stored, reached: CapKind) {
  await countCapReached(c.tenantId, c.agentId, reached);
  // A session's turns come back only with a new session: after this one expires.
  const retryAt = reached === 'sessionTurns' ? Date.parse(c.sessionExpiresAt ?? '') : Number.NaN;
  return widgetLimitReached(reached, Number.isNaN(retryAt) ? untilNextDay(Date.now()) : secondsUntil(retryAt));
}

const sessionTurnsOver = (c: ConversationRecord, limits: Limits) =>
  limits.sessionTurns !== null && c.agentTurns >= limits.sessionTurns;

/**
 * A cap reached answers 429 before anything is stored or any model is called, only while the agent
 * would answer (a person's conversation costs no tokens). The token caps are held for the turn here
 * (the widget's day, the address's day, the session), settled with its answer.
 */
async function holdOrRefuse(c: Stored, ip: string): Promise<{ limits: Limits | null; holds: CapHolds | null }> {
  if (c.status !== 'Open' || !c.widgetId) return { limits: null, holds: null };
  const limits = await widgetLimits(c.tenantId, c.widgetId);
  if (sessionTurnsOver(c, limits)) throw await capRefusal(c, 'sessionTurns');
  const k = widgetSpend(c, ip, Date.now());
  const held = await holdCaps([
    { key: k.widget, cap: limits.dailyTokens, kind: 'dailyTokens' },
    { key: k.address, cap: limits.visitorTokens, kind: 'visitorTokens' },
    { key: k.session, cap: limits.visitorTokens, kind: 'visitorTokens' },
  ]);
  if ('reached' in held) throw await capRefusal(c, held.reached);
  return { limits, holds: held };
}

/** The turn, giving back the caps' holds unless its answer settled them. */
async function* held(turn: AsyncGenerator<VisitorEvent>, holds: CapHolds | null, settled: () => boolean) {
  let ended = false;
  try {
    yield* turn;
    ended = true;
  } finally {
    if (holds && !(ended && settled())) await holds.release();
  }
}

/**
 * A visitor's message (spec route 2): JSON, or with `Accept: text/event-stream` a stream whose first
 * event is pulled before answering, so a refusal (closed, token allowance) is still the status.
 */
export async function widgetSend(
  claim: SessionClaim | null,
  text: string,
  headers: Record<string, string | undefined>,
  requestId: string,
  ip: string,
) {
  const key = idempotencyKeyOf(headers);
  const conversation = await openSession(claim, true);
  const { limits, holds } = await holdOrRefuse(conversation, ip);
  let spent = false;
  let refused: CapKind | null = null;
  const input = {
    text,
    idempotencyKey: key,
    requestId,
    spend: (tokens: number) => {
      spent = true;
      return holds?.settle(tokens) ?? [];
    },
    // Messages that waited for the conversation's turn see the turns answered meanwhile.
    admit: (current: ConversationRecord) => {
      if (limits && sessionTurnsOver(current, limits)) {
        refused = 'sessionTurns';
        throw widgetLimitReached('sessionTurns');
      }
    },
  };
  const stream = (headers.accept ?? headers.Accept ?? '').includes('text/event-stream');
  const turn = held(visitorTurn(conversation, input, { stream }), holds, () => spent);
  let first: IteratorResult<VisitorEvent>;
  try {
    first = await turn.next();
  } catch (err) {
    if (refused) throw await capRefusal(conversation, refused);
    throw err;
  }
  if (stream) return reply.stream(events(first, turn));
  let answer: TurnAnswer | undefined;
  for (let e = first; !e.done; e = await turn.next()) if (e.value.type === 'final') answer = e.value.answer;
  if (!answer) throw agentUnavailable();
  return toWidgetAnswer(answer);
}
