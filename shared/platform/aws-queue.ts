import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from './config.ts';
import type { QueueSender } from './ports.ts';

export function createSqsQueueSender(client = new SQSClient({})): QueueSender {
  return {
    async send(queue, message) {
      await client.send(
        new SendMessageCommand({ QueueUrl: config.queueUrl(queue), MessageBody: JSON.stringify(message) }),
      );
    },
  };
}
