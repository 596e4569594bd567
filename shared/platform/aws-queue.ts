import type { SQSClient } from '@aws-sdk/client-sqs';
import { fifoId } from '#shared/queue/ordering.ts';
import { config } from './config.ts';
import { loadSdk } from './lazy-sdk.ts';
import type { QueueSender } from './ports.ts';

export async function createSqsQueueSender(given?: SQSClient): Promise<QueueSender> {
  const { SendMessageCommand, SQSClient } = await loadSdk.sqs();
  const client = given ?? new SQSClient({});
  return {
    async send(queue, message, opts) {
      await client.send(
        new SendMessageCommand({
          QueueUrl: config.queueUrl(queue),
          MessageBody: JSON.stringify(message),
          ...(opts?.delaySeconds ? { DelaySeconds: Math.min(900, Math.max(0, Math.round(opts.delaySeconds))) } : {}),
          // A FIFO queue: the group keeps the order; the message's own id is its de-duplication id,
          // so a send the SDK retried after a lost answer is taken once.
          ...(opts?.group
            ? { MessageGroupId: fifoId(opts.group), MessageDeduplicationId: fifoId(message.id ?? crypto.randomUUID()) }
            : {}),
        }),
      );
    },
  };
}
