import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { postingsOf } from '#areas/knowledge/keyword/postings.ts';
import { indexInSegments, type SegmentMember } from '#areas/knowledge/keyword/segments.ts';
import { CURRENT_ANALYZER, terms } from '#areas/knowledge/keyword/terms.ts';
import { POSTING_PREFIX, termList, termStatKey } from '#areas/knowledge/records.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { documentOf, KB, newBase, retrieveAs, uploadTogether, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * Documents one delivery brings share their keyword postings (a segment): one posting item per term
 * for all of them, each term's df moved once; a redelivery after a failure part-way rebuilds the same
 * items and counts nothing twice; a member deleted leaves the shared items, once however often purged.
 */
useKnowledgeStandIns();

let owner: string;
let tenantId: string;
beforeAll(async () => {
  tenantId = await newTenant({ maxKnowledgeBases: 10 });
  owner = await tokenFor({ tenantId });
});

const term = (word: string) => terms(word, CURRENT_ANALYZER)[0]!;
const dfOf = async (kbId: string, word: string) =>
  Number((await get<{ df?: number }>(termStatKey(tenantId, kbId, term(word)), { consistent: true }))?.df ?? 0);
const postingsFor = (kbId: string, word: string) =>
  queryItems<{ e?: Record<string, string>; documentId?: string; n: number }>({
    TableName: config.tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    ExpressionAttributeValues: { ':pk': termList(tenantId, kbId, term(word)), ':p': POSTING_PREFIX },
    ConsistentRead: true,
  });

/** Runs `run` with `hook` called before each TransactWriteItems it sends (a throw fails that one). */
async function beforeEachTransaction(hook: (input: unknown) => Promise<void>, run: () => Promise<unknown>) {
  const send = ddb().send;
  const real = send.bind(ddb()) as (c: unknown, ...r: unknown[]) => Promise<unknown>;
  ddb().send = (async (command: unknown, ...rest: unknown[]) => {
    if (command instanceof TransactWriteCommand) await hook(command.input);
    return real(command, ...rest);
  }) as typeof send;
  try {
    await run();
  } finally {
    ddb().send = send;
  }
}

const doc = (n: number) => `Entry ${n} about the zebra${n}q register, with harbour, glacier and lantern notes.`;

describe('documents indexed by one delivery', () => {
  it('share one posting item per term; every one is found by its own word; df counts each chunk once', async () => {
    const kbId = (await newBase(owner)).id;
    const { ids, deliver } = await uploadTogether(
      owner,
      Array.from({ length: 20 }, (_, n) => ({ kbId, title: `Doc ${n}`, text: doc(n) })),
    );
    await deliver();
    for (const id of ids) expect((await documentOf(owner, kbId, id))?.status).toBe('Indexed');

    const shared = await postingsFor(kbId, 'harbour');
    expect(shared).toHaveLength(1);
    expect(Object.keys(shared[0]!.e!).sort()).toEqual([...ids].sort());
    expect(await dfOf(kbId, 'harbour')).toBe(20);
    for (const [n, id] of ids.entries()) {
      const [top] = await retrieveAs(owner, kbId, { query: `zebra${n}q`, mode: 'keyword', topK: 1 });
      expect(top?.documentId, `zebra${n}q`).toBe(id);
    }
    const all = await retrieveAs(owner, kbId, { query: 'harbour', mode: 'keyword', topK: 20 });
    expect(new Set(all.map((h) => h.documentId))).toEqual(new Set(ids));
  });

  it('of two bases make one segment per base', async () => {
    const [a, b] = [(await newBase(owner)).id, (await newBase(owner)).id];
    const { deliver } = await uploadTogether(owner, [
      { kbId: a, title: 'A1', text: doc(1) },
      { kbId: b, title: 'B1', text: doc(2) },
      { kbId: a, title: 'A2', text: doc(3) },
    ]);
    await deliver();
    expect(await dfOf(a, 'harbour')).toBe(2);
    expect(await dfOf(b, 'harbour')).toBe(1);
    expect(await postingsFor(a, 'harbour')).toHaveLength(1);
    expect(Object.keys((await postingsFor(b, 'harbour'))[0]!.e!)).toHaveLength(1);
  });

  it('a member deleted leaves the shared postings and their df, once however often it is purged', async () => {
    const kbId = (await newBase(owner)).id;
    const { ids, deliver } = await uploadTogether(
      owner,
      Array.from({ length: 3 }, (_, n) => ({ kbId, title: `Doc ${n}`, text: doc(n) })),
    );
    await deliver();
    expect(await invoke('DELETE', `${KB}/${kbId}/documents/${ids[1]}`, { token: owner })).toAnswer(204);
    expect(await dfOf(kbId, 'harbour')).toBe(2);
    expect(await dfOf(kbId, 'zebra1q')).toBe(0);
    expect(Object.keys((await postingsFor(kbId, 'harbour'))[0]!.e!).sort()).toEqual([ids[0], ids[2]].sort());
    const hits = await retrieveAs(owner, kbId, { query: 'harbour', mode: 'keyword', topK: 10 });
    expect(hits.map((h) => h.documentId).sort()).toEqual([ids[0], ids[2]].sort());
  });

  it('two deliveries at once into one base count every shared term exactly', async () => {
    const kbId = (await newBase(owner)).id;
    const first = await uploadTogether(
      owner,
      Array.from({ length: 10 }, (_, n) => ({ kbId, title: `A${n}`, text: doc(n) })),
    );
    const second = await uploadTogether(
      owner,
      Array.from({ length: 10 }, (_, n) => ({ kbId, title: `B${n}`, text: doc(n + 10) })),
    );
    await Promise.all([first.deliver(), second.deliver()]);
    expect(await dfOf(kbId, 'harbour')).toBe(20);
    expect(await dfOf(kbId, 'glacier')).toBe(20);
    expect(await postingsFor(kbId, 'harbour')).toHaveLength(2);
  });
});

describe('a document deleted while its delivery runs', () => {
  it('is left out of the documents moved together; the others are Indexed and the base counts them alone', async () => {
    const kbId = (await newBase(owner)).id;
    const { ids, deliver } = await uploadTogether(
      owner,
      Array.from({ length: 5 }, (_, n) => ({ kbId, title: `Doc ${n}`, text: doc(n) })),
    );
    // The delete lands just before the transaction that moves the five to Indexed.
    let deleted = false;
    await beforeEachTransaction(async (input) => {
      if (deleted || !JSON.stringify(input).includes('"indexed"')) return;
      deleted = true;
      expect(await invoke('DELETE', `${KB}/${kbId}/documents/${ids[2]}`, { token: owner })).toAnswer(204);
    }, deliver);
    expect(deleted).toBe(true);
    for (const id of [ids[0], ids[1], ids[3], ids[4]])
      expect((await documentOf(owner, kbId, id!))?.status).toBe('Indexed');
    expect(await documentOf(owner, kbId, ids[2]!)).toBeUndefined();
    const base = await invoke('GET', `${KB}/${kbId}`, { token: owner });
    expect(base.json.result).toMatchObject({ documentCount: 4, chunkCount: 4 });
    expect(base.json.result.documentsByStatus).toMatchObject({ Indexed: 4, Processing: 0, Queued: 0 });
    expect(await dfOf(kbId, 'harbour')).toBe(4);
    expect(await dfOf(kbId, 'zebra2q')).toBe(0);
  });
});

describe('a segment written part-way', () => {
  it('is rebuilt by the redelivery with the same items, and no df counts twice', async () => {
    const kbId = (await newBase(owner)).id;
    // 3 members of 120 words each (60 shared): 300 distinct terms, seven transactions of 45.
    const members: SegmentMember[] = Array.from({ length: 3 }, (_, m) => {
      const own = Array.from({ length: 60 }, (_, i) => `own${m}x${i}`);
      const shared = Array.from({ length: 60 }, (_, i) => `common${i}`);
      const documentId = `doc-${m}-${crypto.randomUUID()}`;
      return {
        documentId,
        chunks: 1,
        terms: postingsOf(documentId, [{ position: 0, text: [...own, ...shared].join(' ') }], CURRENT_ANALYZER),
      };
    });
    // The third transaction of the first attempt fails, as a Lambda stopped part-way leaves it.
    let transactions = 0;
    await beforeEachTransaction(
      async () => {
        if (++transactions === 3) throw new Error('the instance stopped');
      },
      () => expect(indexInSegments(tenantId, kbId, members, async () => null)).rejects.toThrow('the instance stopped'),
    );
    const segments = await indexInSegments(tenantId, kbId, members, async () => null);
    expect(new Set(segments.values()).size).toBe(1);
    expect(await dfOf(kbId, 'common7')).toBe(3);
    expect(await dfOf(kbId, 'own2x59')).toBe(1);
    for (let i = 0; i < 60; i++) expect(await dfOf(kbId, `common${i}`), `common${i}`).toBe(3);
    const shared = await postingsFor(kbId, 'common0');
    expect(shared).toHaveLength(1);
    expect(Object.keys(shared[0]!.e!)).toHaveLength(3);
    // A third run (another redelivery) changes nothing.
    await indexInSegments(tenantId, kbId, members, async () => null);
    expect(await dfOf(kbId, 'common0')).toBe(3);
  });
});
