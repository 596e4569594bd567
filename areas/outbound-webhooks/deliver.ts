import { writeItem } from '#shared/data/write-one.ts';
import { Webhook } from 'standardwebhooks';
import { bumpCounter } from '#shared/data/collection.ts';
import { commitChange, putNew, updateItem } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { ApiError } from '#shared/http/errors.ts';
import { enqueue } from '#shared/queue/messages.ts';
import { logger } from '#shared/runtime/logger.ts';
import { DELIVERY_ATTEMPT, type DeliveryAttempt } from './messages.ts';
import {
  deliveryItem,
  deliveryKey,
  deliveryList,
  subscriptionKey,
  TEST_EVENT,
  type DeliveryRecord,
  type DeliveryStatus,
  type SubscriptionRecord,
} from './records.ts';
import { postPinned, type SendOutcome } from './send.ts';
import { resolveTarget } from './target.ts';

/**
 * The wait before each retry, in seconds: attempt n failed, the next comes BACKOFF[n - 1] later. Within
 * SQS's 15-minute delay, so each retry is one delayed message; six attempts over about 36 minutes.
 */
export const BACKOFF_SECONDS = [10, 60, 300, 900, 900] as const;
export const MAX_ATTEMPTS = BACKOFF_SECONDS.length + 1;

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

/** The attempt's outcome on the log, unless a later attempt wrote there already (a late duplicate). */
async function record(p: DeliveryAttempt, set: Partial<DeliveryRecord> & { status: DeliveryStatus }) {
  try {
    await writeItem(
      updateItem(
        deliveryKey(p.tenantId, p.subscriptionId, p.deliveryId),
        { ...set, attempts: p.attempt, updatedAt: new Date().toISOString() },
        {
          condition: 'attribute_exists(pk) AND #attempts < :attempt',
          names: { '#attempts': 'attempts' },
          values: { ':attempt': p.attempt },
        },
      ),
    );
  } catch (err) {
    if (!isConflict(err)) throw err;
  }
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
  if (!sub.isActive && p.event.type !== TEST_EVENT) {
    await record(p, {
      status: 'failed',
      statusCode: null,
      lastError: 'The subscription is inactive',
      nextRetryAt: null,
    });
    return { delivered: false };
  }
  const outcome = await attempt(sub, p);
  const statusCode = 'statusCode' in outcome ? outcome.statusCode : null;
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
    await record(p, { status: 'succeeded', statusCode, lastError: null, nextRetryAt: null });
    return { delivered: true };
  }
  const lastError = 'error' in outcome ? outcome.error.slice(0, 300) : `The receiver answered ${statusCode}`;
  if (p.attempt >= MAX_ATTEMPTS) {
    await record(p, { status: 'failed', statusCode, lastError, nextRetryAt: null });
    logger.warn('webhook delivery failed', { subscriptionId: p.subscriptionId, deliveryId: p.deliveryId, lastError });
    return { delivered: false };
  }
  const delay = BACKOFF_SECONDS[p.attempt - 1]!;
  const nextRetryAt = new Date(Date.now() + delay * 1000).toISOString();
  await record(p, { status: 'retrying', statusCode, lastError, nextRetryAt });
  const next = p.attempt + 1;
  await enqueue(
    DELIVERY_ATTEMPT,
    { ...p, attempt: next },
    { id: `delivery:${p.event.id}:${p.subscriptionId}:${next}`, delaySeconds: delay },
  );
  return { delivered: false };
}
