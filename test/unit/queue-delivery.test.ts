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

const record = (id: string, receiveCount?: number) =>
  ({
    messageId: id,
    body: JSON.stringify({ id, type: 'probe', payload: {} }),
    attributes: receiveCount === undefined ? {} : { ApproximateReceiveCount: String(receiveCount) },
  }) as unknown as SQSRecord;

it('passes the receive count and whether this receive is the last before the dead-letter queue', async () => {
  const seen: Delivery[] = [];
  const worker = queueWorker('channels', [
    handles(
      messageKind('channels', 'probe', () => z.looseObject({})),
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
