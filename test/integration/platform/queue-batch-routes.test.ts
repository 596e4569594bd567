import type { SQSEvent } from 'aws-lambda';
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { claim, readClaim } from '#shared/data/idempotency.ts';
import { keys } from '#shared/data/keys.ts';
import { handles, handlesBatch, messageKind, type BatchItem } from '#shared/queue/messages.ts';
import { queueWorker } from '#shared/queue/worker.ts';

/** A queue worker's batch routes, against DynamoDB Local's claims: one run per delivery, each message once. */
const QUEUE = 'batch-routes-test';
const doc = messageKind('indexing', 'doc.index', () => z.object({ n: z.number() }));
const single = messageKind('indexing', 'doc.remove', () => z.object({ n: z.number() }));

const record = (id: string, type: string, n: number, receiveCount = 1) => ({
  messageId: `sqs-${id}`,
  body: JSON.stringify({ id, type, payload: { n } }),
  attributes: { ApproximateReceiveCount: String(receiveCount) },
});
const event = (...records: ReturnType<typeof record>[]) => ({ Records: records }) as unknown as SQSEvent;
const newIds = (n: number) => Array.from({ length: n }, () => crypto.randomUUID());
const failuresOf = (out: { batchItemFailures: { itemIdentifier: string }[] }) =>
  out.batchItemFailures.map((f) => f.itemIdentifier).sort();

/** A batch route that records each run's items and fails the ids `failing` names. */
function recordingBatch(failing: (items: BatchItem<{ n: number }>[]) => Promise<string[]> = async () => []) {
  const runs: BatchItem<{ n: number }>[][] = [];
  const route = handlesBatch(doc, async (items) => {
    runs.push(items);
    return failing(items);
  });
  return { runs, route };
}

describe('queue worker batch routes', () => {
  it('hands every claimed message of its kind in a delivery to one run, after the single routes', async () => {
    const order: string[] = [];
    const batch = recordingBatch(async (items) => {
      order.push(`batch ${items.length}`);
      return [];
    });
    const worker = queueWorker(QUEUE, [batch.route, handles(single, async (p) => void order.push(`single ${p.n}`))]);
    const [a, b, c, r] = newIds(4);
    const out = await worker(
      event(
        record(a!, 'doc.index', 1),
        record(r!, 'doc.remove', 9),
        record(b!, 'doc.index', 2, 3),
        record(c!, 'doc.index', 3),
      ),
    );
    expect(out.batchItemFailures).toEqual([]);
    expect(batch.runs).toHaveLength(1);
    expect(batch.runs[0]).toEqual([
      { payload: { n: 1 }, messageId: a, delivery: { receiveCount: 1, lastReceive: false } },
      { payload: { n: 2 }, messageId: b, delivery: { receiveCount: 3, lastReceive: false } },
      { payload: { n: 3 }, messageId: c, delivery: { receiveCount: 1, lastReceive: false } },
    ]);
    expect(order).toEqual(['single 9', 'batch 3']);
    for (const id of [a!, b!, c!]) expect((await readClaim(keys.messageClaim(QUEUE, id)))?.status).toBe('done');
  });

  it('passes no message already done, and fails one another delivery holds', async () => {
    const batch = recordingBatch();
    const worker = queueWorker(QUEUE, [batch.route]);
    const [doneId, heldId, fresh] = newIds(3);
    await worker(event(record(doneId!, 'doc.index', 1)));
    await claim(keys.messageClaim(QUEUE, heldId!), { leaseMs: 60_000, ttlSeconds: 3600 });
    const out = await worker(
      event(record(doneId!, 'doc.index', 1), record(heldId!, 'doc.index', 2), record(fresh!, 'doc.index', 3)),
    );
    expect(batch.runs.map((items) => items.map((i) => i.messageId))).toEqual([[doneId], [fresh]]);
    expect(failuresOf(out)).toEqual([`sqs-${heldId}`]);
  });

  it('reports the ids it returns as failed and releases their claims, so a redelivery runs them (and only them)', async () => {
    const [ok, bad] = newIds(2);
    const batch = recordingBatch(async (items) => items.filter((i) => i.payload.n === 2).map((i) => i.messageId));
    const worker = queueWorker(QUEUE, [batch.route]);
    const out = await worker(event(record(ok!, 'doc.index', 1), record(bad!, 'doc.index', 2)));
    expect(failuresOf(out)).toEqual([`sqs-${bad}`]);
    expect(await readClaim(keys.messageClaim(QUEUE, bad!))).toBeUndefined();
    expect((await readClaim(keys.messageClaim(QUEUE, ok!)))?.status).toBe('done');

    const again = await worker(event(record(ok!, 'doc.index', 1, 2), record(bad!, 'doc.index', 2, 2)));
    expect(batch.runs.map((items) => items.map((i) => i.messageId))).toEqual([[ok, bad], [bad]]);
    expect(failuresOf(again)).toEqual([`sqs-${bad}`]);
  });

  it('fails every message of the run when it throws, and releases their claims', async () => {
    const ids = newIds(3);
    let calls = 0;
    const worker = queueWorker(QUEUE, [
      handlesBatch(doc, async () => {
        if (++calls === 1) throw new Error('embedding provider down');
        return [];
      }),
    ]);
    const out = await worker(event(...ids.map((id, i) => record(id, 'doc.index', i))));
    expect(failuresOf(out)).toEqual(ids.map((id) => `sqs-${id}`).sort());
    for (const id of ids) expect(await readClaim(keys.messageClaim(QUEUE, id))).toBeUndefined();
    expect((await worker(event(...ids.map((id, i) => record(id, 'doc.index', i, 2))))).batchItemFailures).toEqual([]);
    expect(calls).toBe(2);
  });

  it('runs a batch route alone through its single-message run (one item; a failed id throws)', async () => {
    const route = handlesBatch(doc, async (items) => items.filter((i) => i.payload.n < 0).map((i) => i.messageId));
    await expect(route.run({ n: 1 }, 'one', { receiveCount: 1, lastReceive: false })).resolves.toBeUndefined();
    await expect(route.run({ n: -1 }, 'two', { receiveCount: 1, lastReceive: false })).rejects.toThrow(/two/);
  });

  it('refuses a batch route on an ordered queue when the worker is built', () => {
    const ordered = messageKind('turns', 'turn.run', () => z.looseObject({}), { group: () => 'g' });
    expect(() => queueWorker('turns', [handlesBatch(ordered, async () => [])])).toThrow(/ordered/);
  });
});
