import { batchingOf } from '#shared/queue/batching.ts';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { localQueue, type WorkerHandler } from '#local/local-queue.ts';
import type { QueueName } from '#shared/routes/groups.ts';
import { tempDir } from '#test/support/temp-dir.ts';

/** The message ids of each event, in the order the worker received them. */
const idsOf = (events: SQSEvent[]) =>
  events.map((e) => e.Records.map((r) => (JSON.parse(r.body) as { id: string }).id));

/** A gate a delivery waits on, opened by the test. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** Resolves once `check` holds, looking again after each turn of the event loop. */
async function until(check: () => boolean) {
  for (let i = 0; i < 10_000 && !check(); i++) await new Promise((r) => setImmediate(r));
  expect(check()).toBe(true);
}

const send = (queue: ReturnType<typeof localQueue>, name: QueueName, id: string) =>
  queue.send(name, { id, type: 'probe', payload: { id } });

/** A local queue whose worker records each event and holds it until `hold.open()`. */
function heldQueue() {
  const events: SQSEvent[] = [];
  const hold = gate();
  const handler: WorkerHandler = async (event) => {
    events.push(event);
    await hold.opened;
    return { batchItemFailures: [] };
  };
  return {
    events,
    hold,
    queue: localQueue({ dataDir: tempDir('local-queue-batches-'), loadWorker: async () => handler }),
  };
}

describe('local queue batches (a standard queue)', () => {
  it('gathers the messages sent while its only delivery is busy into the next event, up to the batch size', async () => {
    // Prepare
    const events: SQSEvent[] = [];
    const first = gate();
    const handler: WorkerHandler = async (event) => {
      events.push(event);
      if (events.length === 1) await first.opened;
      return { batchItemFailures: [] };
    };
    const queue = localQueue({
      dataDir: tempDir('local-queue-batches-'),
      loadWorker: async () => handler,
      queues: { jobs: { concurrency: 1, batchSize: 3 } },
    });

    // Act
    await send(queue, 'jobs', 'm0');
    await until(() => events.length === 1);
    for (const id of ['m1', 'm2', 'm3', 'm4', 'm5']) await send(queue, 'jobs', id);
    await new Promise((r) => setTimeout(r, 20));
    const whileBusy = events.length;
    first.open();
    await queue.drain();

    // Assess
    expect(whileBusy).toBe(1);
    expect(idsOf(events)).toEqual([['m0'], ['m1', 'm2', 'm3'], ['m4', 'm5']]);
  });

  it('retries a record listed in batchItemFailures on its own receive count, alone once the others succeeded, then parks it', async () => {
    // Prepare
    const events: SQSEvent[] = [];
    const handler: WorkerHandler = async (event) => {
      events.push(event);
      return {
        batchItemFailures: event.Records.filter((r) => JSON.parse(r.body).id === 'bad').map((r) => ({
          itemIdentifier: r.messageId,
        })),
      };
    };
    const queue = localQueue({
      dataDir: tempDir('local-queue-batches-'),
      backoffMs: 1,
      loadWorker: async () => handler,
      queues: { jobs: { concurrency: 1, batchSize: 5 } },
    });

    // Act
    await Promise.all(['a', 'bad', 'c'].map((id) => send(queue, 'jobs', id)));
    await queue.drain();

    // Assess
    expect(idsOf(events)).toEqual([['a', 'bad', 'c'], ['bad'], ['bad']]);
    expect(events.map((e) => e.Records.map((r) => r.attributes.ApproximateReceiveCount))).toEqual([
      ['1', '1', '1'],
      ['2'],
      ['3'],
    ]);
    const letters = queue.deadLetters();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ queue: 'jobs', attempts: 3, error: 'Reported in batchItemFailures' });
    expect(JSON.parse(letters[0]!.body).id).toBe('bad');
  });

  it('retries every record of a delivery whose handler threw, each with its own receive count', async () => {
    // Prepare
    const events: SQSEvent[] = [];
    const handler: WorkerHandler = async (event) => {
      events.push(event);
      if (events.length === 1) throw new Error('worker crashed');
      return { batchItemFailures: [] };
    };
    const queue = localQueue({
      dataDir: tempDir('local-queue-batches-'),
      backoffMs: 1,
      loadWorker: async () => handler,
      queues: { jobs: { concurrency: 1, batchSize: 5 } },
    });

    // Act
    await Promise.all(['x', 'y'].map((id) => send(queue, 'jobs', id)));
    await queue.drain();

    // Assess
    expect(idsOf(events)[0]).toEqual(['x', 'y']);
    const retried = events.slice(1).flatMap((e) => e.Records);
    expect(retried.map((r) => JSON.parse(r.body).id).sort()).toEqual(['x', 'y']);
    expect(retried.every((r) => r.attributes.ApproximateReceiveCount === '2')).toBe(true);
    expect(queue.deadLetters()).toEqual([]);
  });

  it('delivers each message of a queue with the default config at once, however many deliveries are still running', async () => {
    // Prepare
    const { events, hold, queue } = heldQueue();

    // Act: each sent once the one before is being handled, and held there.
    for (const [i, id] of ['e1', 'e2', 'e3', 'e4', 'e5', 'e6'].entries()) {
      await send(queue, 'email', id);
      await until(() => events.length === i + 1);
    }
    hold.open();
    await queue.drain();

    // Assess
    expect(idsOf(events)).toEqual([['e1'], ['e2'], ['e3'], ['e4'], ['e5'], ['e6']]);
  });

  it("batches the indexing queue by its worker's spec: four deliveries at once, the messages waiting behind them in one event", async () => {
    // Prepare
    const { events, hold, queue } = heldQueue();

    // Act
    for (const [i, id] of ['d1', 'd2', 'd3', 'd4'].entries()) {
      await send(queue, 'indexing', id);
      await until(() => events.length === i + 1);
    }
    const size = batchingOf('knowledge-worker').batchSize;
    for (let i = 5; i <= size + 10; i++) await send(queue, 'indexing', `d${i}`);
    await new Promise((r) => setTimeout(r, 20));
    const whileBusy = events.length;
    hold.open();
    await queue.drain();

    // Assess
    expect(whileBusy).toBe(4);
    const ids = idsOf(events);
    expect(ids.slice(0, 4)).toEqual([['d1'], ['d2'], ['d3'], ['d4']]);
    // The size + 6 waiting: a full batch in the first delivery after a slot frees, the rest in the next.
    expect(ids.slice(4).map((batch) => batch.length)).toEqual([size, 6]);
    expect(ids.flat()).toEqual(Array.from({ length: size + 10 }, (_, i) => `d${i + 1}`));
  });

  it('gathers the messages of a queue with a batching window into one event, and sends a full batch without waiting', async () => {
    // Prepare
    const events: SQSEvent[] = [];
    const at: number[] = [];
    const handler: WorkerHandler = async (event) => {
      events.push(event);
      at.push(Date.now());
      return { batchItemFailures: [] };
    };
    const queue = localQueue({
      dataDir: tempDir('local-queue-batches-'),
      loadWorker: async () => handler,
      queues: { usage: { batchSize: 4, windowMs: 150 } },
    });

    // Act: three sent apart, each well within the window of the first; then a full batch at once.
    const started = Date.now();
    for (const id of ['w1', 'w2', 'w3']) {
      await send(queue, 'usage', id);
      await new Promise((r) => setTimeout(r, 20));
    }
    const beforeWindow = events.length;
    await queue.drain();
    const full = Date.now();
    for (const id of ['f1', 'f2', 'f3', 'f4']) await send(queue, 'usage', id);
    await queue.drain();

    // Assess
    expect(beforeWindow).toBe(0);
    expect(idsOf(events)).toEqual([
      ['w1', 'w2', 'w3'],
      ['f1', 'f2', 'f3', 'f4'],
    ]);
    expect(at[0]! - started).toBeGreaterThanOrEqual(140);
    expect(at[1]! - full).toBeLessThan(100);
  });

  it('drains only once every delivery, retry and dead letter is done', async () => {
    // Prepare
    const hold = gate();
    let calls = 0;
    const handler: WorkerHandler = async (event) => {
      calls++;
      await hold.opened;
      return { batchItemFailures: event.Records.slice(0, 1).map((r) => ({ itemIdentifier: r.messageId })) };
    };
    const queue = localQueue({
      dataDir: tempDir('local-queue-batches-'),
      backoffMs: 1,
      maxAttempts: 2,
      loadWorker: async () => handler,
      queues: { jobs: { concurrency: 1, batchSize: 5 } },
    });
    await Promise.all(['p', 'q'].map((id) => send(queue, 'jobs', id)));
    let drained = false;
    const draining = queue.drain().then(() => {
      drained = true;
    });

    // Act
    await until(() => calls === 1);
    await new Promise((r) => setTimeout(r, 20));
    const beforeOpen = drained;
    hold.open();
    await draining;

    // Assess: p failed twice (parked), q succeeded at once.
    expect(beforeOpen).toBe(false);
    expect(calls).toBe(2);
    expect(queue.deadLetters().map((l) => JSON.parse(l.body).id)).toEqual(['p']);
  });
});
