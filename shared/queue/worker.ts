import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { withWiring, type Wiring } from '#shared/data/wiring.ts';
import { keys, type Key } from '#shared/data/keys.ts';
import { claim, done, release } from '#shared/data/idempotency.ts';
import type { QueueMessage } from '#shared/platform/ports.ts';
import { parsePayload, type BatchItem, type MessageRoute } from './messages.ts';
import { isOrdered } from './ordering.ts';
import { logger } from '#shared/runtime/logger.ts';
import { countMetric, publishMetrics } from '#shared/runtime/metrics.ts';
import { MAX_RECEIVE_COUNT } from './redrive.ts';

/** A message id is claimed before its work runs, so duplicates delivered in parallel cannot both run. */
const CLAIM = {
  /**
   * At least any worker's timeout (the indexing worker's 300 s; taken after its run starts, a claim
   * outlives it): a claim still held after it belongs to a delivery that died. Shorter than a
   * queue's visibility timeout, so a redelivery after such a death finds it free.
   */
  leaseMs: 5 * 60 * 1000,
  /** Longer than the queue keeps a message (four days): a redelivery still finds it done. */
  ttlSeconds: 7 * 24 * 3600,
};

/** This failure is the message's last receive: SQS moves it to the dead-letter queue next. */
const isLastReceive = (record: SQSRecord) =>
  Number(record.attributes?.ApproximateReceiveCount ?? 1) >= MAX_RECEIVE_COUNT;

/** A batch route's message, claimed and waiting for its route's one run. */
interface Claimed {
  record: SQSRecord;
  /** Absent for a route that counts each message once itself (`countsOnce`). */
  claimKey?: Key;
  item: BatchItem<unknown>;
}

/**
 * An SQS consumer: each record is handled on its own; failures are reported as partial batch
 * failures so only they are retried (and dead-lettered after the queue's maxReceiveCount); on a
 * FIFO queue a failure also holds back the rest of its group in the batch.
 * Each message id runs its work at most once to completion, however often it is delivered.
 * A batch route's records are parsed and claimed in the delivery's order like the others, then,
 * after every other record, handed to its route in one run (its failed ids released and retried);
 * one that counts each message once itself (`countsOnce`) skips the claims' two writes a message.
 */
export function queueWorker(queue: string, routes: readonly MessageRoute[], opts: { wiring?: readonly Wiring[] } = {}) {
  for (const r of routes)
    if (r.runBatch && isOrdered(r.kind.queue))
      throw new Error(`${r.kind.type}: ${r.kind.queue} is ordered; a batch route needs a standard queue`);
  const byType = new Map(routes.map((r) => [r.kind.type, r]));
  const wiring = opts.wiring ?? [];
  const handler = (event: SQSEvent): Promise<SQSBatchResponse> => withWiring(wiring, () => batch(event));
  return Object.assign(handler, { wiring });
  async function batch(event: SQSEvent): Promise<SQSBatchResponse> {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    const failed = async (record: SQSRecord, error: unknown, claimed: Key | undefined) => {
      if (claimed) await release(claimed);
      const parked = isLastReceive(record);
      logger.error('message failed', { queue, messageId: record.messageId, parked, error: error as Error });
      countMetric(parked ? 'MessageParked' : 'MessageRetried', queue);
      batchItemFailures.push({ itemIdentifier: record.messageId });
    };
    // A FIFO group whose message failed: its later messages in this batch wait (reported failed
    // unrun), or they would overtake it.
    const blocked = new Set<string>();
    const together = new Map<MessageRoute, Claimed[]>();
    const gather = (route: MessageRoute, message: Claimed) => {
      const list = together.get(route);
      if (list) list.push(message);
      else together.set(route, [message]);
    };
    for (const record of event.Records) {
      const group = record.attributes?.MessageGroupId;
      if (group && blocked.has(group)) {
        batchItemFailures.push({ itemIdentifier: record.messageId });
        continue;
      }
      let claimed: Key | undefined;
      try {
        const message = JSON.parse(record.body) as QueueMessage;
        const id = message.id ?? record.messageId;
        const route = byType.get(message.type);
        if (!route) throw new Error(`No handler for message type ${message.type}`);
        const payload = parsePayload(route.kind, message.payload);
        const delivery = {
          receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1),
          lastReceive: isLastReceive(record),
        };
        if (route.countsOnce) {
          gather(route, { record, item: { payload, messageId: id, delivery } });
          continue;
        }
        const claimKey = keys.messageClaim(queue, id);
        const state = await claim(claimKey, CLAIM);
        if (state.kind === 'done') continue;
        if (state.kind === 'in-progress') throw new Error('Message is being processed by another delivery');
        claimed = claimKey;
        if (route.runBatch) {
          gather(route, { record, claimKey, item: { payload, messageId: id, delivery } });
          continue;
        }
        await route.run(payload, id, delivery);
        await done(claimKey);
        countMetric('MessageProcessed', queue);
      } catch (error) {
        await failed(record, error, claimed);
        if (group) blocked.add(group);
      }
    }
    for (const [route, claims] of together) await runTogether(route, claims, failed);
    await publishMetrics();
    return { batchItemFailures };
  }
  /** One run of a batch route over its claimed messages; a throw fails them all. */
  async function runTogether(
    route: MessageRoute,
    claims: Claimed[],
    failed: (record: SQSRecord, error: unknown, claimed: Key | undefined) => Promise<void>,
  ) {
    let failedIds: ReadonlySet<string>;
    let error: unknown = new Error('Reported failed by its batch route');
    try {
      failedIds = new Set(await route.runBatch!(claims.map((c) => c.item)));
    } catch (thrown) {
      error = thrown;
      failedIds = new Set(claims.map((c) => c.item.messageId));
    }
    for (const { record, claimKey, item } of claims) {
      try {
        if (failedIds.has(item.messageId)) throw error;
        if (claimKey) await done(claimKey);
        countMetric('MessageProcessed', queue);
      } catch (err) {
        await failed(record, err, claimKey);
      }
    }
  }
}
