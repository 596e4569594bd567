import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { keys } from '#shared/data/keys.ts';
import { get } from '#shared/data/read.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import type { QueueMessage } from '#shared/platform/ports.ts';
import { parsePayload, type MessageRoute } from './messages.ts';
import { logger } from '#shared/runtime/logger.ts';
import { countMetric, publishMetrics } from '#shared/runtime/metrics.ts';
import { MAX_RECEIVE_COUNT } from './redrive.ts';

const DONE_TTL_SECONDS = 7 * 24 * 3600;
/** How long a claim keeps duplicates away; longer than any worker's timeout. */
const LEASE_MS = 5 * 60 * 1000;

/** This failure is the message's last receive: SQS moves it to the dead-letter queue next. */
const isLastReceive = (record: SQSRecord) =>
  Number(record.attributes?.ApproximateReceiveCount ?? 1) >= MAX_RECEIVE_COUNT;

const claimKey = keys.messageClaim;

/**
 * Claims a message id before its work runs, so duplicates delivered in parallel cannot both run:
 * 'claimed' (ours to process), 'done' (processed before: skip), 'busy' (another delivery holds it).
 */
async function claim(queue: string, id: string): Promise<'claimed' | 'done' | 'busy'> {
  const now = Date.now();
  try {
    await ddb().send(
      new PutCommand({
        TableName: config.tableName,
        Item: {
          ...claimKey(queue, id),
          status: 'processing',
          leaseUntil: now + LEASE_MS,
          ttl: Math.floor(now / 1000) + DONE_TTL_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR (#status = :processing AND leaseUntil < :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':processing': 'processing', ':now': now },
      }),
    );
    return 'claimed';
  } catch (err) {
    if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
    const existing = await get<{ status?: string }>(claimKey(queue, id), { consistent: true });
    return existing?.status === 'done' ? 'done' : 'busy';
  }
}

const markDone = (queue: string, id: string) =>
  ddb().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: claimKey(queue, id),
      UpdateExpression: 'SET #status = :done',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':done': 'done' },
    }),
  );

/** A failed attempt gives the claim back so the queue's retry can run the work again. */
const release = (queue: string, id: string) =>
  ddb()
    .send(new DeleteCommand({ TableName: config.tableName, Key: claimKey(queue, id) }))
    .catch(() => undefined);

/**
 * An SQS consumer: each record is handled on its own; failures are reported as partial batch
 * failures so only they are retried (and dead-lettered after the queue's maxReceiveCount).
 * Each message id runs its work at most once to completion, however often it is delivered.
 */
export function queueWorker(queue: string, routes: readonly MessageRoute[]) {
  const byType = new Map(routes.map((r) => [r.kind.type, r]));
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      let claimed: string | undefined;
      try {
        const message = JSON.parse(record.body) as QueueMessage;
        const id = message.id ?? record.messageId;
        const route = byType.get(message.type);
        if (!route) throw new Error(`No handler for message type ${message.type}`);
        const payload = parsePayload(route.kind, message.payload);
        const state = await claim(queue, id);
        if (state === 'done') continue;
        if (state === 'busy') throw new Error('Message is being processed by another delivery');
        claimed = id;
        await route.run(payload, id, {
          receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1),
          lastReceive: isLastReceive(record),
        });
        await markDone(queue, id);
        countMetric('MessageProcessed', queue);
      } catch (error) {
        if (claimed) await release(queue, claimed);
        const parked = isLastReceive(record);
        logger.error('message failed', { queue, messageId: record.messageId, parked, error: error as Error });
        countMetric(parked ? 'MessageParked' : 'MessageRetried', queue);
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    await publishMetrics();
    return { batchItemFailures };
  };
}
