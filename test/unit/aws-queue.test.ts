import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, expect, it } from 'vitest';
import { createSqsQueueSender } from '#shared/platform/aws-queue.ts';
import { fifoId } from '#shared/queue/ordering.ts';

const sqs = mockClient(SQSClient);
beforeEach(() => {
  sqs.reset();
  sqs.onAnyCommand().resolves({});
});

it('sends a grouped message with its FIFO group and its own id as the de-duplication id, both digests SQS takes', async () => {
  const sender = await createSqsQueueSender(new SQSClient({}));
  const long = `channel\n${'x'.repeat(500)}`;
  await sender.send('turns', { id: 'turn:abc', type: 'channel.turn', payload: {} }, { group: long });
  const input = sqs.commandCalls(SendMessageCommand)[0]!.args[0].input;
  expect(input.MessageGroupId).toBe(fifoId(long));
  expect(input.MessageDeduplicationId).toBe(fifoId('turn:abc'));
  expect(input.MessageGroupId).toMatch(/^[0-9a-f]{64}$/);
  expect(input.DelaySeconds).toBeUndefined();
});

it('sends an ungrouped message with neither, and its delay', async () => {
  const sender = await createSqsQueueSender(new SQSClient({}));
  await sender.send('deliveries', { id: 'd', type: 'webhook.delivery', payload: {} }, { delaySeconds: 30 });
  const input = sqs.commandCalls(SendMessageCommand)[0]!.args[0].input;
  expect(input).not.toHaveProperty('MessageGroupId');
  expect(input).not.toHaveProperty('MessageDeduplicationId');
  expect(input.DelaySeconds).toBe(30);
});
