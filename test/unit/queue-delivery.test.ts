import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import * as z from 'zod/mini';
import { beforeEach, expect, it } from 'vitest';
import { handles, messageKind, type Delivery } from '#shared/queue/messages.ts';
import { MAX_RECEIVE_COUNT } from '#shared/queue/redrive.ts';
import { queueWorker } from '#shared/queue/worker.ts';

/**
 * A handler learns which delivery of its message it runs (SQS ApproximateReceiveCount), so a
 * proactive message records its platform's error on the last one, when no retry follows.
 */
const ddbMock = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddbMock.reset();
  ddbMock.onAnyCommand().resolves({});
});

const record = (id: string, receiveCount?: number, group?: string) =>
  ({
    messageId: id,
    body: JSON.stringify({ id, type: 'probe', payload: { id } }),
    attributes: {
      ...(receiveCount === undefined ? {} : { ApproximateReceiveCount: String(receiveCount) }),
      ...(group ? { MessageGroupId: group } : {}),
    },
  }) as unknown as SQSRecord;

it('passes the receive count and whether this receive is the last before the dead-letter queue', async () => {
  const seen: Delivery[] = [];
  const worker = queueWorker('jobs', [
    handles(
      messageKind('jobs', 'probe', () => z.looseObject({})),
      async (_p, _id, d) => void seen.push(d),
    ),
  ]);
  await worker({
    Records: [record('a'), record('b', 2), record('c', MAX_RECEIVE_COUNT - 1), record('d', MAX_RECEIVE_COUNT)],
  });
  expect(seen).toEqual([
    { receiveCount: 1, lastReceive: false },
    { receiveCount: 2, lastReceive: false },
    { receiveCount: MAX_RECEIVE_COUNT - 1, lastReceive: false },
    { receiveCount: MAX_RECEIVE_COUNT, lastReceive: true },
  ]);
});

it('on a FIFO queue, a failed message holds back the rest of its group in the batch (unrun, reported failed); other groups go on', async () => {
  const ran: string[] = [];
  const worker = queueWorker('turns', [
    handles(
      messageKind('turns', 'probe', () => z.looseObject({ id: z.string() }), { group: () => 'g' }),
      async (p) => {
        ran.push(p.id as string);
        if (p.id === 'a2') throw new Error('model down');
      },
    ),
  ]);
  const out = await worker({
    Records: [
      record('a1', 1, 'A'),
      record('b1', 1, 'B'),
      record('a2', 1, 'A'),
      record('a3', 1, 'A'),
      record('b2', 1, 'B'),
    ],
  });
  expect(ran).toEqual(['a1', 'b1', 'a2', 'b2']);
  expect(out.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['a2', 'a3']);
});

it('a message kind names a group exactly when its queue is ordered (SQS FIFO refuses a message without one)', () => {
  expect(() => messageKind('turns', 'no-group', () => z.looseObject({}))).toThrow(/ordered/);
  expect(() => messageKind('email', 'group', () => z.looseObject({}), { group: () => 'g' })).toThrow(/ordered/);
});
