import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { QueueMessage, QueueSender } from '#shared/platform/ports.ts';
import { WORKERS, type QueueName, type WorkerName } from '#shared/routes/groups.ts';
import { isOrdered } from '#shared/queue/ordering.ts';
import { lambdaContext } from './apigw-event.ts';
import { readJson, serialized, writeJson } from './json-file.ts';

export type WorkerHandler = (event: SQSEvent, context?: unknown) => Promise<SQSBatchResponse | undefined>;

export interface DeadLetter {
  queue: QueueName;
  messageId: string;
  body: string;
  attempts: number;
  error: string;
  deadLetteredAt: string;
}

export interface LocalQueueOptions {
  dataDir: string;
  /** Resolves a queue's consumer; the default imports the worker's real handler. */
  loadWorker?: (queue: QueueName) => Promise<WorkerHandler>;
  maxAttempts?: number;
  /** First retry delay; each further retry doubles it. */
  backoffMs?: number;
}

/** SQS rejects bodies over 256 KiB; so does the stand-in, so oversized messages fail locally too. */
const MAX_BODY_BYTES = 256 * 1024;

const workerOf = (queue: QueueName) =>
  (Object.entries(WORKERS) as [WorkerName, (typeof WORKERS)[WorkerName]][]).find(([, w]) => w.queue === queue)![0];

const importWorker = async (queue: QueueName) =>
  ((await import(`../functions/${workerOf(queue)}/index.ts`)) as { handler: WorkerHandler }).handler;

/**
 * In-process SQS: `send` returns at once and the queue's worker gets the message later in an
 * SQS event, like an event source mapping. A message that fails (thrown, or listed in
 * batchItemFailures) is redelivered with backoff; after `maxAttempts` receives it is parked in
 * LOCAL_DATA_DIR/dead-letters.json, as the queue's redrive policy would move it to its DLQ. On an
 * ordered queue (FIFO) a group's messages run one at a time in the order sent, a failing one holding
 * the rest of its group back; other messages run side by side, as Lambda's concurrent batches do.
 */
export function localQueue(opts: LocalQueueOptions): QueueSender & {
  drain(): Promise<void>;
  deadLetters(): DeadLetter[];
} {
  const { maxAttempts = 3, backoffMs = 500, loadWorker = importWorker } = opts;
  const deadLetterFile = join(opts.dataDir, 'dead-letters.json');
  const exclusive = serialized();
  let inFlight = 0;
  const idle: (() => void)[] = [];

  const settle = () => {
    if (--inFlight === 0) for (const wake of idle.splice(0)) wake();
  };

  const park = (letter: DeadLetter) =>
    exclusive(() => writeJson(deadLetterFile, [...readJson<DeadLetter[]>(deadLetterFile, []), letter]));

  /** One receive of the message: the worker's error, or '' when it succeeded. */
  async function receive(queue: QueueName, record: SQSRecord, receiveCount: number): Promise<string> {
    try {
      const handler = await loadWorker(queue);
      const attempt = {
        ...record,
        attributes: { ...record.attributes, ApproximateReceiveCount: String(receiveCount) },
      };
      const out = await handler({ Records: [attempt] }, lambdaContext(workerOf(queue)));
      return out?.batchItemFailures?.some((f) => f.itemIdentifier === record.messageId)
        ? 'Reported in batchItemFailures'
        : '';
    } catch (err) {
      return (err as Error).message ?? String(err);
    }
  }

  async function parkAfter(queue: QueueName, record: SQSRecord, receiveCount: number, error: string) {
    const letter = {
      queue,
      messageId: record.messageId,
      body: record.body,
      attempts: receiveCount,
      error,
      deadLetteredAt: new Date().toISOString(),
    };
    await park(letter).catch((err) => console.error('[local-queue] could not persist dead letter', err));
    console.error(
      `[local-queue] ${queue} message ${record.messageId} dead-lettered after ${receiveCount} attempts: ${error}`,
    );
  }

  const backoff = (receiveCount: number) => backoffMs * 2 ** (receiveCount - 1);

  /** A standard queue: each message on its own, retried with backoff, then parked. */
  async function deliver(queue: QueueName, record: SQSRecord, receiveCount: number) {
    const error = await receive(queue, record, receiveCount);
    if (!error) return settle();
    if (receiveCount < maxAttempts) {
      setTimeout(() => void deliver(queue, record, receiveCount + 1), backoff(receiveCount)).unref();
      return;
    }
    await parkAfter(queue, record, receiveCount, error);
    settle();
  }

  /** An ordered queue's group (SQS FIFO): one message at a time, the next only once this one succeeded or was parked. */
  const groups = new Map<string, Promise<void>>();
  async function deliverInOrder(queue: QueueName, record: SQSRecord) {
    for (let receiveCount = 1; ; receiveCount++) {
      const error = await receive(queue, record, receiveCount);
      if (!error) return;
      if (receiveCount >= maxAttempts) return parkAfter(queue, record, receiveCount, error);
      await new Promise((r) => setTimeout(r, backoff(receiveCount)));
    }
  }
  function enqueueInGroup(queue: QueueName, group: string, record: SQSRecord) {
    const key = `${queue}\n${group}`;
    const next = (groups.get(key) ?? Promise.resolve()).then(() => deliverInOrder(queue, record)).finally(settle);
    groups.set(key, next);
    void next.then(() => {
      if (groups.get(key) === next) groups.delete(key);
    });
  }

  return {
    async send(queue, message: QueueMessage, opts) {
      const body = JSON.stringify(message);
      if (Buffer.byteLength(body) > MAX_BODY_BYTES) throw new Error(`Message to ${queue} exceeds 256 KiB`);
      const sentAt = Date.now();
      const record: SQSRecord = {
        messageId: crypto.randomUUID(),
        receiptHandle: crypto.randomUUID(),
        body,
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(sentAt),
          SenderId: 'local',
          ApproximateFirstReceiveTimestamp: String(sentAt),
        },
        messageAttributes: {},
        md5OfBody: createHash('md5').update(body).digest('hex'),
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queue}`,
        awsRegion: 'us-east-1',
      };
      if (isOrdered(queue) !== !!opts?.group)
        throw new Error(`A message to ${queue} names a group exactly when the queue is ordered`);
      if (opts?.group && opts.delaySeconds) throw new Error(`${queue} is ordered: no message has a delay of its own`);
      inFlight++;
      if (opts?.group)
        return enqueueInGroup(queue, opts.group, {
          ...record,
          attributes: { ...record.attributes, MessageGroupId: opts.group },
        });
      const delayMs = Math.min(900, opts?.delaySeconds ?? 0) * 1000;
      if (delayMs) setTimeout(() => void deliver(queue, record, 1), delayMs).unref();
      else setImmediate(() => void deliver(queue, record, 1));
    },
    /** Resolves once every message sent so far has been handled or dead-lettered. */
    drain: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve))),
    deadLetters: () => readJson<DeadLetter[]>(deadLetterFile, []),
  };
}
