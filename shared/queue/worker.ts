import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { ddb } from '../platform/aws.ts';
import { config } from '../platform/config.ts';
import type { QueueMessage } from '../platform/ports.ts';
import { logger } from '../runtime/logger.ts';

export type MessageHandler = (payload: Record<string, unknown>, message: QueueMessage) => Promise<void>;

const DONE_TTL_SECONDS = 7 * 24 * 3600;

/** Records a processed message id; false when it was already processed (a redelivery). */
async function markDone(queue: string, id: string): Promise<boolean> {
  try {
    await ddb().send(
      new PutCommand({
        TableName: config.tableName,
        Item: { pk: `DONE#${queue}#${id}`, sk: 'ITEM', ttl: Math.floor(Date.now() / 1000) + DONE_TTL_SECONDS },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (err) {
    if ((err as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw err;
  }
}

async function alreadyDone(queue: string, id: string): Promise<boolean> {
  const out = await ddb().send(new GetCommand({ TableName: config.tableName, Key: { pk: `DONE#${queue}#${id}`, sk: 'ITEM' } }));
  return !!out.Item;
}

/**
 * An SQS consumer: each record is handled on its own; failures are reported as partial batch
 * failures so only they are retried (and dead-lettered after the queue's maxReceiveCount).
 * Messages already processed are skipped, so a redelivery does no work twice.
 */
export function queueWorker(queue: string, handlers: Record<string, MessageHandler>) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        const message = JSON.parse(record.body) as QueueMessage;
        const id = message.id ?? record.messageId;
        const handle = handlers[message.type];
        if (!handle) throw new Error(`No handler for message type ${message.type}`);
        if (await alreadyDone(queue, id)) continue;
        await handle(message.payload, message);
        await markDone(queue, id);
      } catch (error) {
        logger.error('message failed', { queue, messageId: record.messageId, error: error as Error });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}
