import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { withWiring, type Wiring } from '#shared/data/wiring.ts';
import { keys, type Key } from '#shared/data/keys.ts';
import { claim, done, release } from '#shared/data/idempotency.ts';
import type { QueueMessage } from '#shared/platform/ports.ts';
import { parsePayload, type MessageRoute } from './messages.ts';
import { logger } from '#shared/runtime/logger.ts';
import { countMetric, publishMetrics } from '#shared/runtime/metrics.ts';
import { MAX_RECEIVE_COUNT } from './redrive.ts';

/** A message id is claimed before its work runs, so duplicates delivered in parallel cannot both run. */
const CLAIM = {
  /** Longer than any worker's timeout: a claim still held after it belongs to a delivery that died. */
  leaseMs: 5 * 60 * 1000,
  /** Longer than the queue keeps a message (four days): a redelivery still finds it done. */
  ttlSeconds: 7 * 24 * 3600,
};

/** This failure is the message's last receive: SQS moves it to the dead-letter queue next. */
const isLastReceive = (record: SQSRecord) =>
  Number(record.attributes?.ApproximateReceiveCount ?? 1) >= MAX_RECEIVE_COUNT;

/**
 * An SQS consumer: each record is handled on its own; failures are reported as partial batch
 * failures so only they are retried (and dead-lettered after the queue's maxReceiveCount); on a
 * FIFO queue a failure also holds back the rest of its group in the batch.
 * Each message id runs its work at most once to completion, however often it is delivered.
 */
export function queueWorker(queue: string, routes: readonly MessageRoute[], opts: { wiring?: readonly Wiring[] } = {}) {
  const byType = new Map(routes.map((r) => [r.kind.type, r]));
  const wiring = opts.wiring ?? [];
  const handler = (event: SQSEvent): Promise<SQSBatchResponse> => withWiring(wiring, () => batch(event));
  return Object.assign(handler, { wiring });
  async function batch(event: SQSEvent): Promise<SQSBatchResponse> {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    // A FIFO group whose message failed: its later messages in this batch wait (reported failed
    // unrun), or they would overtake it.
    const blocked = new Set<string>();
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
        const claimKey = keys.messageClaim(queue, id);
        const state = await claim(claimKey, CLAIM);
        if (state.kind === 'done') continue;
        if (state.kind === 'in-progress') throw new Error('Message is being processed by another delivery');
        claimed = claimKey;
        await route.run(payload, id, {
          receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1),
          lastReceive: isLastReceive(record),
        });
        await done(claimKey);
        countMetric('MessageProcessed', queue);
      } catch (error) {
        if (claimed) await release(claimed);
        const parked = isLastReceive(record);
        logger.error('message failed', { queue, messageId: record.messageId, parked, error: error as Error });
        countMetric(parked ? 'MessageParked' : 'MessageRetried', queue);
        batchItemFailures.push({ itemIdentifier: record.messageId });
        if (group) blocked.add(group);
      }
    }
    await publishMetrics();
    return { batchItemFailures };
  }
}
