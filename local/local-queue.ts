import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { QueueMessage, QueueSender } from '#shared/platform/ports.ts';
import type { QueueName } from '#shared/routes/groups.ts';
import { batchingOf, DEFAULT_BATCH_SIZE, workerOf } from '#shared/queue/batching.ts';
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
  /** A standard queue's deliveries, instead of its worker's spec (shared/queue/batching.ts). */
  queues?: Partial<Record<QueueName, LocalBatching>>;
}

export interface LocalBatching {
  /** Most records in one delivery; the worker's batch size by default. */
  batchSize?: number;
  /** Most deliveries of the queue in flight at once; unbounded by default unless the batch size is above 5. */
  concurrency?: number;
  /**
   * How long the oldest waiting message may wait for others before a delivery that is not full
   * (an event source's batching window); 0 by default: a delivery goes out with what is waiting.
   */
  windowMs?: number;
}

/**
 * The deliveries at once of a queue batched above the default: few enough that, under load, messages
 * wait and later deliveries carry more of them, as Lambda's poller fills its batches.
 */
const BATCHED_CONCURRENCY = 4;

/** SQS rejects bodies over 256 KiB; so does the stand-in, so oversized messages fail locally too. */
const MAX_BODY_BYTES = 256 * 1024;

/** A queue's real worker, as deployed (the default `loadWorker`). */
export const importWorker = async (queue: QueueName) =>
  ((await import(`../functions/${workerOf(queue)}/index.ts`)) as { handler: WorkerHandler }).handler;

/** A message of a standard queue waiting for a delivery, with the receive it will be. */
interface Waiting {
  record: SQSRecord;
  receiveCount: number;
  /** When it joined the list (its batching window counts from the oldest waiting). */
  since: number;
}

/** A standard queue's messages waiting for a delivery, and its deliveries in flight. */
interface Lane {
  waiting: Waiting[];
  busy: number;
  batchSize: number;
  concurrency: number;
  windowMs: number;
  /** A delivery waiting out the window of the oldest waiting message. */
  timer?: NodeJS.Timeout;
}

/**
 * In-process SQS: `send` returns at once and the queue's worker gets the message later in an
 * SQS event, like an event source mapping. A standard queue's ready messages wait in its list; while
 * fewer than its concurrency of deliveries are in flight, a delivery takes up to its batch size of
 * them in one event, when the batch is full or its window (none by default) has passed. A record that
 * fails (the handler threw, or listed it in batchItemFailures) is retried on its own receive count
 * with backoff, rejoining the list; after `maxAttempts` receives it is parked in
 * LOCAL_DATA_DIR/dead-letters.json, as the queue's redrive policy would move it to its DLQ. On an
 * ordered queue (FIFO) a group's messages run one at a time in the order sent, a failing one holding
 * the rest of its group back; other groups run side by side, as Lambda's concurrent batches do.
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

  /** One delivery of the records: each failed one's error (absent when it succeeded). */
  async function receive(queue: QueueName, batch: readonly Omit<Waiting, 'since'>[]): Promise<Map<string, string>> {
    const records = batch.map(({ record, receiveCount }) => ({
      ...record,
      attributes: { ...record.attributes, ApproximateReceiveCount: String(receiveCount) },
    }));
    try {
      const handler = await loadWorker(queue);
      const out = await handler({ Records: records }, lambdaContext(workerOf(queue)));
      const failed = new Set(out?.batchItemFailures?.map((f) => f.itemIdentifier));
      return new Map(
        records.filter((r) => failed.has(r.messageId)).map((r) => [r.messageId, 'Reported in batchItemFailures']),
      );
    } catch (err) {
      const error = (err as Error).message ?? String(err);
      return new Map(records.map((r) => [r.messageId, error]));
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

  const lanes = new Map<QueueName, Lane>();
  function laneOf(queue: QueueName): Lane {
    let lane = lanes.get(queue);
    if (!lane) {
      const own = opts.queues?.[queue] ?? {};
      const batchSize = own.batchSize ?? batchingOf(workerOf(queue)).batchSize;
      const concurrency = own.concurrency ?? (batchSize > DEFAULT_BATCH_SIZE ? BATCHED_CONCURRENCY : Infinity);
      lane = { waiting: [], busy: 0, batchSize, concurrency, windowMs: own.windowMs ?? 0 };
      lanes.set(queue, lane);
    }
    return lane;
  }

  /**
   * A standard queue: deliveries start while its concurrency allows, each with up to a batch of what
   * waits, once the batch is full or the oldest waiting message's window has passed.
   */
  function pump(queue: QueueName) {
    const lane = laneOf(queue);
    while (lane.busy < lane.concurrency && lane.waiting.length) {
      const wait = lane.waiting.length < lane.batchSize ? lane.waiting[0]!.since + lane.windowMs - Date.now() : 0;
      if (wait > 0) {
        lane.timer ??= setTimeout(() => {
          lane.timer = undefined;
          pump(queue);
        }, wait);
        return;
      }
      lane.busy++;
      void deliver(queue, lane, lane.waiting.splice(0, lane.batchSize));
    }
  }

  const ready = (queue: QueueName, waiting: Omit<Waiting, 'since'>) => {
    laneOf(queue).waiting.push({ ...waiting, since: Date.now() });
    pump(queue);
  };

  /** One delivery of a standard queue: a failed record is retried after its backoff, or parked. */
  async function deliver(queue: QueueName, lane: Lane, batch: Waiting[]) {
    const errors = await receive(queue, batch);
    lane.busy--;
    pump(queue);
    for (const { record, receiveCount } of batch) {
      const error = errors.get(record.messageId);
      if (error === undefined) settle();
      else if (receiveCount < maxAttempts)
        setTimeout(() => ready(queue, { record, receiveCount: receiveCount + 1 }), backoff(receiveCount)).unref();
      else {
        await parkAfter(queue, record, receiveCount, error);
        settle();
      }
    }
  }

  /** An ordered queue's group (SQS FIFO): one message at a time, the next only once this one succeeded or was parked. */
  const groups = new Map<string, Promise<void>>();
  async function deliverInOrder(queue: QueueName, record: SQSRecord) {
    for (let receiveCount = 1; ; receiveCount++) {
      const error = (await receive(queue, [{ record, receiveCount }])).get(record.messageId);
      if (error === undefined) return;
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
      // Joins the list at once (messages sent together can share a delivery); delivered after `send` returns.
      if (delayMs) setTimeout(() => ready(queue, { record, receiveCount: 1 }), delayMs).unref();
      else {
        laneOf(queue).waiting.push({ record, receiveCount: 1, since: sentAt });
        setImmediate(() => pump(queue));
      }
    },
    /** Resolves once every message sent so far has been handled or dead-lettered. */
    drain: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve))),
    deadLetters: () => readJson<DeadLetter[]>(deadLetterFile, []),
  };
}
