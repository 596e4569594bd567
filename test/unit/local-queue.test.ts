import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { localQueue, type WorkerHandler } from '#local/local-queue.ts';
import { tempDir } from '#test/support/temp-dir.ts';

const newDir = () => tempDir('local-queue-');

/** A worker that records every SQS event it receives and answers with `outcome`. */
function recordingWorker(outcome: (event: SQSEvent) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>) {
  const received: SQSEvent[] = [];
  const handler: WorkerHandler = async (event) => {
    received.push(event);
    return outcome(event);
  };
  return { received, handler };
}

describe('local queue (SQS stand-in)', () => {
  it('delivers a good message once, asynchronously, as an SQS event to the queue worker', async () => {
    // Prepare
    const worker = recordingWorker(async () => ({ batchItemFailures: [] }));
    const asked: string[] = [];
    const queue = localQueue({
      dataDir: newDir(),
      backoffMs: 1,
      loadWorker: async (q) => {
        asked.push(q);
        return worker.handler;
      },
    });

    // Act
    await queue.send('email', { id: 'm-1', type: 'email.send', payload: { to: ['a@example.com'] } });
    const deliveredBeforeDrain = worker.received.length;
    await queue.drain();

    // Assess
    expect(deliveredBeforeDrain).toBe(0);
    expect(asked).toEqual(['email']);
    expect(worker.received).toHaveLength(1);
    const [record] = worker.received[0]!.Records;
    expect(JSON.parse(record!.body)).toEqual({ id: 'm-1', type: 'email.send', payload: { to: ['a@example.com'] } });
    expect(record!.attributes.ApproximateReceiveCount).toBe('1');
    expect(record!.eventSource).toBe('aws:sqs');
    expect(queue.deadLetters()).toEqual([]);
  });

  it('holds a delayed message back for its delaySeconds, as SQS DelaySeconds does (a retry back-off)', async () => {
    // Prepare
    const worker = recordingWorker(async () => ({ batchItemFailures: [] }));
    const queue = localQueue({ dataDir: newDir(), loadWorker: async () => worker.handler });
    const sentAt = Date.now();

    // Act
    await queue.send(
      'deliveries',
      { id: 'd-2', type: 'webhook.delivery', payload: { attempt: 2 } },
      { delaySeconds: 1 },
    );
    await new Promise((r) => setTimeout(r, 300));
    const early = worker.received.length;
    await queue.drain();

    // Assess
    expect(early).toBe(0);
    expect(worker.received).toHaveLength(1);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(950);
  });

  it('retries a message reported in batchItemFailures, then dead-letters it after 3 attempts', async () => {
    // Prepare
    const dataDir = newDir();
    const worker = recordingWorker(async (event) => ({
      batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })),
    }));
    const queue = localQueue({ dataDir, backoffMs: 1, loadWorker: async () => worker.handler });

    // Act
    await queue.send('webhooks', { type: 'webhook.apply', payload: { n: 1 } });
    await queue.drain();

    // Assess
    expect(worker.received.map((e) => e.Records[0]!.attributes.ApproximateReceiveCount)).toEqual(['1', '2', '3']);
    const ids = new Set(worker.received.map((e) => e.Records[0]!.messageId));
    expect(ids.size).toBe(1);
    const letters = queue.deadLetters();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ queue: 'webhooks', attempts: 3, messageId: [...ids][0] });
    expect(JSON.parse(letters[0]!.body)).toEqual({ type: 'webhook.apply', payload: { n: 1 } });
    expect(JSON.parse(readFileSync(join(dataDir, 'dead-letters.json'), 'utf8'))).toEqual(letters);
  });

  it('treats a thrown error as a failure and delivers again once the worker recovers', async () => {
    // Prepare
    let calls = 0;
    const worker = recordingWorker(async () => {
      if (++calls === 1) throw new Error('transient');
      return { batchItemFailures: [] };
    });
    const queue = localQueue({ dataDir: newDir(), backoffMs: 1, loadWorker: async () => worker.handler });

    // Act
    await queue.send('jobs', { type: 'job.run', payload: {} });
    await queue.drain();

    // Assess
    expect(worker.received).toHaveLength(2);
    expect(queue.deadLetters()).toEqual([]);
  });

  it('keeps dead letters across instances on the same data directory', async () => {
    // Prepare
    const dataDir = newDir();
    const failing: WorkerHandler = async () => {
      throw new Error('always');
    };
    const first = localQueue({ dataDir, backoffMs: 1, maxAttempts: 1, loadWorker: async () => failing });

    // Act
    await first.send('email', { type: 'a', payload: {} });
    await first.send('email', { type: 'b', payload: {} });
    await first.drain();

    // Assess
    const letters = localQueue({ dataDir }).deadLetters();
    expect(letters.map((l) => JSON.parse(l.body).type).sort()).toEqual(['a', 'b']);
    expect(letters.every((l) => l.error === 'always')).toBe(true);
  });

  it('delivers an ordered queue one message of a group at a time, in the order sent; a failing one holds its group back until it succeeds; another group runs beside it', async () => {
    // Prepare
    const log: string[] = [];
    let failures = 2;
    let bDone!: () => void;
    const bEnded = new Promise<void>((resolve) => {
      bDone = resolve;
    });
    const handler: WorkerHandler = async (event) => {
      const { id } = JSON.parse(event.Records[0]!.body) as { id: string };
      log.push(`start ${id}`);
      // A's first message cannot end before B's has: B must not wait behind A's group.
      if (id === 'a1') await bEnded;
      if (id === 'a2' && failures-- > 0) {
        log.push(`fail ${id}`);
        throw new Error('transient');
      }
      log.push(`end ${id}`);
      if (id === 'b1') bDone();
      return { batchItemFailures: [] };
    };
    const queue = localQueue({ dataDir: newDir(), backoffMs: 1, loadWorker: async () => handler });

    // Act
    for (const id of ['a1', 'a2', 'a3']) await queue.send('turns', { id, type: 't', payload: {} }, { group: 'A' });
    await queue.send('turns', { id: 'b1', type: 't', payload: {} }, { group: 'B' });
    await queue.drain();

    // Assess: A's messages never overlap and keep their order through a2's retries.
    const ofA = log.filter((l) => l.includes(' a'));
    expect(ofA).toEqual([
      'start a1',
      'end a1',
      'start a2',
      'fail a2',
      'start a2',
      'fail a2',
      'start a2',
      'end a2',
      'start a3',
      'end a3',
    ]);
    expect(log.indexOf('end b1')).toBeLessThan(log.indexOf('end a1'));
    expect(queue.deadLetters()).toEqual([]);
  });

  it('refuses a message to an ordered queue without a group, with a delay, or a group on a standard queue', async () => {
    const queue = localQueue({ dataDir: newDir(), loadWorker: async () => async () => ({ batchItemFailures: [] }) });
    await expect(queue.send('turns', { type: 't', payload: {} })).rejects.toThrow(/group/);
    await expect(queue.send('turns', { type: 't', payload: {} }, { group: 'g', delaySeconds: 1 })).rejects.toThrow(
      /delay/,
    );
    await expect(queue.send('email', { type: 't', payload: {} }, { group: 'g' })).rejects.toThrow(/group/);
  });
});
