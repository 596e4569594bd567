import type { SQSClient } from '@aws-sdk/client-sqs';
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
        }),
      );
    },
  };
}
