import { agentUnavailable, widgetLimits } from '#areas/agents/for-conversations.ts';
import { ApiError } from '#shared/http/errors.ts';
import { idempotencyKey } from '#shared/http/idempotency-key.ts';
import { reply } from '#shared/http/responses.ts';
import { sseEvent } from '#shared/runtime/stream.ts';
import { invalidIdempotencyKey, widgetLimitReached } from './errors.ts';
import type { Stored } from './store.ts';
import { countCapReached, secondsUntil, untilNextDay, widgetCapReached, widgetSpendWrites } from './visitor-caps.ts';
import type { SessionClaim } from './session.ts';
import { visitorTurn, visitorTurnAnswer, type TurnAnswer, type VisitorEvent } from './turn.ts';
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

/**
 * A cap reached answers 429 before anything is stored or any model is called, only while the agent
 * would answer (a person's conversation costs no tokens). Counted on the agent's day for analytics.
 */
async function refuseOverCap(c: Stored, ip: string) {
  if (c.status !== 'Open' || !c.widgetId) return;
  const reached = await widgetCapReached(c, await widgetLimits(c.tenantId, c.widgetId), ip);
  if (!reached) return;
  await countCapReached(c.tenantId, c.agentId, reached);
  // A session's turns come back only with a new session: after this one expires.
  const retryAt = reached === 'sessionTurns' ? Date.parse(c.sessionExpiresAt ?? '') : Number.NaN;
  throw widgetLimitReached(reached, Number.isNaN(retryAt) ? untilNextDay(Date.now()) : secondsUntil(retryAt));
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
  await refuseOverCap(conversation, ip);
  const input = {
    text,
    idempotencyKey: key,
    requestId,
    spend: (tokens: number) => widgetSpendWrites(conversation, ip, tokens),
  };
  const accept = headers.accept ?? headers.Accept ?? '';
  if (!accept.includes('text/event-stream')) return toWidgetAnswer(await visitorTurnAnswer(conversation, input));
  const turn = visitorTurn(conversation, input, { stream: true });
  const first = await turn.next();
  return reply.stream(events(first, turn));
}
