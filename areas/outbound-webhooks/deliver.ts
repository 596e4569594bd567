import { writeOne } from '#shared/data/write-one.ts';
import { Webhook } from 'standardwebhooks';
import { bumpCounter } from '#shared/data/collection.ts';
import { commitChange, putNew } from '#shared/data/commit.ts';
import { config } from '#shared/platform/config.ts';
import { get } from '#shared/data/read.ts';
import { ApiError } from '#shared/http/errors.ts';
import { enqueue } from '#shared/queue/messages.ts';
import { logger } from '#shared/runtime/logger.ts';
import { DELIVERY_ATTEMPT, type DeliveryAttempt } from './messages.ts';
import {
  BACKOFF_SECONDS,
  MAX_ATTEMPTS,
  deliveryItem,
  deliveryKey,
  deliveryList,
  subscriptionKey,
  TEST_EVENT,
  type AttemptEntry,
  type DeliveryRecord,
  type SubscriptionRecord,
} from './records.ts';
import { postPinned, type SendOutcome } from './send.ts';
import { resolveTarget } from './target.ts';
import { releaseInFlight } from './test-limits.ts';

export { BACKOFF_SECONDS, MAX_ATTEMPTS } from './records.ts';

const isConflict = (err: unknown) => err instanceof ApiError && err.status === 409;

/** The log entry, written by the first attempt (a redelivered first attempt finds it there). */
async function openLog(p: DeliveryAttempt, now: string) {
  const record: DeliveryRecord = {
    id: p.deliveryId,
    tenantId: p.tenantId,
    subscriptionId: p.subscriptionId,
    eventId: p.event.id,
    eventType: p.event.type,
    status: 'pending',
    attempts: 0,
    statusCode: null,
    lastError: null,
    nextRetryAt: null,
    attemptLog: [],
    createdAt: now,
    updatedAt: now,
  };
  try {
    await commitChange(
      [putNew(deliveryItem(record)), bumpCounter(deliveryList(p.tenantId, p.subscriptionId), 1)],
      null,
    );
  } catch (err) {
    if (!isConflict(err)) throw err;
  }
}

type Outcome = Pick<DeliveryRecord, 'status' | 'statusCode' | 'lastError' | 'nextRetryAt'>;

/**
 * The attempt's outcome on the log, its entry appended to the attempt list, unless a later attempt
 * wrote there already (a late duplicate). Answers whether it wrote.
 */
async function record(p: DeliveryAttempt, set: Outcome, entry: AttemptEntry): Promise<boolean> {
  const fields = { ...set, attempts: p.attempt, updatedAt: new Date().toISOString() };
  const names: Record<string, string> = { '#attempts': 'attempts', '#log': 'attemptLog' };
  const values: Record<string, unknown> = { ':attempt': p.attempt, ':entry': [entry], ':none': [] };
  const sets = Object.entries(fields).map(([k, v], i) => {
    names[`#f${i}`] = k;
    values[`:f${i}`] = v;
    return `#f${i} = :f${i}`;
  });
  const out = await writeOne({
    Update: {
      TableName: config.tableName,
      Key: deliveryKey(p.tenantId, p.subscriptionId, p.deliveryId),
      UpdateExpression: `SET ${sets.join(', ')}, #log = list_append(if_not_exists(#log, :none), :entry)`,
      ConditionExpression: 'attribute_exists(pk) AND #attempts < :attempt',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  });
  return out.written;
}

/** A finished test delivery gives its place among the subscription's tests in flight back. */
async function finished(p: DeliveryAttempt, wrote: boolean) {
  if (wrote && p.event.type === TEST_EVENT) await releaseInFlight(p.tenantId, p.subscriptionId);
}

/** The signed request: Standard Webhooks' three headers over the exact body sent. */
export function signed(secret: string, event: DeliveryAttempt['event'], at = new Date()) {
  const body = JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });
  const headers = {
    'webhook-id': event.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(event.id, at, body),
    'user-agent': 'platform-webhooks/1',
  };
  return { body, headers };
}

async function attempt(sub: SubscriptionRecord, p: DeliveryAttempt): Promise<SendOutcome> {
  let target: Awaited<ReturnType<typeof resolveTarget>>;
  try {
    target = await resolveTarget(sub.url);
  } catch (err) {
    return { error: err instanceof Error ? err.message : 'The URL is not allowed' };
  }
  const { body, headers } = signed(sub.secret, p.event);
  return postPinned(target, headers, body);
}

/**
 * One attempt (the delivery worker): the subscription as it is now (deleted: nothing to do;
 * inactive: the delivery fails, except a test), the event signed with its current secret and sent to
 * a checked address. A 2xx succeeds; anything else is retried with back-off until MAX_ATTEMPTS, each
 * attempt on the delivery log.
 */
export async function deliverAttempt(p: DeliveryAttempt) {
  const sub = await get<SubscriptionRecord>(subscriptionKey(p.tenantId, p.subscriptionId), { consistent: true });
  if (!sub) return { delivered: false };
  if (p.attempt === 1) await openLog(p, new Date().toISOString());
  const startedAt = new Date();
  const entry = (statusCode: number | null, error: string | null): AttemptEntry => ({
    attempt: p.attempt,
    at: startedAt.toISOString(),
    statusCode,
    error,
    durationMs: Math.max(0, Date.now() - startedAt.getTime()),
  });
  if (!sub.isActive && p.event.type !== TEST_EVENT) {
    const lastError = 'The subscription is inactive';
    await record(p, { status: 'failed', statusCode: null, lastError, nextRetryAt: null }, entry(null, lastError));
    return { delivered: false };
  }
  const outcome = await attempt(sub, p);
  const statusCode = 'statusCode' in outcome ? outcome.statusCode : null;
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
    const wrote = await record(
      p,
      { status: 'succeeded', statusCode, lastError: null, nextRetryAt: null },
      entry(statusCode, null),
    );
    await finished(p, wrote);
    return { delivered: true };
  }
  const lastError = 'error' in outcome ? outcome.error.slice(0, 300) : `The receiver answered ${statusCode}`;
  if (p.attempt >= MAX_ATTEMPTS) {
    const wrote = await record(
      p,
      { status: 'failed', statusCode, lastError, nextRetryAt: null },
      entry(statusCode, lastError),
    );
    await finished(p, wrote);
    logger.warn('webhook delivery failed', { subscriptionId: p.subscriptionId, deliveryId: p.deliveryId, lastError });
    return { delivered: false };
  }
  const delay = BACKOFF_SECONDS[p.attempt - 1]!;
  const nextRetryAt = new Date(Date.now() + delay * 1000).toISOString();
  await record(p, { status: 'retrying', statusCode, lastError, nextRetryAt }, entry(statusCode, lastError));
  const next = p.attempt + 1;
  await enqueue(
    DELIVERY_ATTEMPT,
    { ...p, attempt: next },
    { id: `delivery:${p.event.id}:${p.subscriptionId}:${next}`, delaySeconds: delay },
  );
  return { delivered: false };
}
