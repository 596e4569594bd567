import { beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { indexDocuments } from '#areas/knowledge/indexing.ts';
import { withWiring } from '#shared/data/wiring.ts';
import { ApiError } from '#shared/http/errors.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { testVectors } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { documentOf, newBase, uploadTogether, useKnowledgeStandIns } from '#test/support/knowledge.ts';

/**
 * Small documents of one delivery are embedded several a call (64 chunks at most), each call made
 * as one uploader and metered to them; a refusal fails that call's documents, not the others'.
 */
const calls = vi.hoisted(() => ({ seen: [] as { requestId: string; userId: string; inputs: number }[], refuse: '' }));
vi.mock('#areas/llm-gateway/embed.ts', async (original) => {
  const real = await original<typeof import('#areas/llm-gateway/embed.ts')>();
  return {
    ...real,
    embed: async (call: Parameters<typeof real.embed>[0]) => {
      const userId = call.caller.kind === 'user' ? call.caller.userId : call.caller.kind;
      calls.seen.push({ requestId: call.requestId, userId, inputs: call.input.length });
      if (userId === calls.refuse)
        throw new ApiError(429, 'TOKEN_LIMIT_REACHED', "The tenant's monthly token allowance is used up");
      return real.embed(call);
    },
  };
});

useKnowledgeStandIns();

let tenantId: string;
let owner: string;
let member: string;
const memberId = crypto.randomUUID();
beforeAll(async () => {
  tenantId = await newTenant({ maxKnowledgeBases: 10 });
  owner = await tokenFor({ tenantId });
  member = await tokenFor({ tenantId, userId: memberId });
});
beforeEach(() => {
  calls.seen = [];
  calls.refuse = '';
});

const abstract = (n: number) => ({ title: `Note ${n}`, text: `Finding ${n}: otters in colony ${n} hold hands.` });

it("one delivery embeds each uploader's small documents in one call, and every document is indexed", async () => {
  const { id: kbId } = await newBase(owner);
  const uploads = [
    ...Array.from({ length: 6 }, (_, n) => ({ kbId, ...abstract(n) })),
    ...Array.from({ length: 3 }, (_, n) => ({ kbId, ...abstract(10 + n), token: member })),
  ];
  const { ids, deliver } = await uploadTogether(owner, uploads);
  await deliver();

  expect(calls.seen.map((c) => c.inputs).sort()).toEqual([3, 6]);
  expect(calls.seen.find((c) => c.inputs === 3)?.userId).toBe(memberId);
  for (const id of ids) expect(await documentOf(owner, kbId, id)).toMatchObject({ status: 'Indexed', chunkCount: 1 });
  expect(testVectors.size(kbId)).toBe(9);
});

it("a refused call fails only its own documents, with the gateway's reason", async () => {
  const { id: kbId } = await newBase(owner);
  calls.refuse = memberId;
  const { ids, deliver } = await uploadTogether(owner, [
    ...Array.from({ length: 4 }, (_, n) => ({ kbId, ...abstract(n) })),
    ...Array.from({ length: 3 }, (_, n) => ({ kbId, ...abstract(10 + n), token: member })),
  ]);
  await deliver();

  const docs = (await Promise.all(ids.map((id) => documentOf(owner, kbId, id)))).map((d) => d!);
  for (const d of docs.slice(0, 4)) expect(d).toMatchObject({ status: 'Indexed', chunkCount: 1 });
  for (const d of docs.slice(4)) {
    expect(d).toMatchObject({ status: 'Failed', chunkCount: 0 });
    expect(d.error).toMatch(/Embedding was refused: .*token allowance/);
  }
  expect(testVectors.size(kbId)).toBe(4);
});

it('a call embeds at most 64 chunks, each call under its own request id', async () => {
  const { id: kbId } = await newBase(owner);
  const { deliver } = await uploadTogether(
    owner,
    Array.from({ length: 70 }, (_, n) => ({ kbId, ...abstract(n) })),
  );
  await deliver();
  expect(calls.seen.map((c) => c.inputs).sort((a, b) => a - b)).toEqual([6, 64]);
  expect(new Set(calls.seen.map((c) => c.requestId)).size).toBe(2);
  expect(testVectors.size(kbId)).toBe(70);
});

it('a document of more than one call is embedded alone, in its own calls', async () => {
  const { id: kbId } = await newBase(owner, { chunkSize: 100, chunkOverlap: 0 });
  const long = Array.from({ length: 8000 }, (_, n) => `word${n % 500}`).join(' ');
  const { ids, deliver } = await uploadTogether(owner, [
    { kbId, title: 'Long', text: long },
    { kbId, ...abstract(1) },
  ]);
  await deliver();

  const big = (await documentOf(owner, kbId, ids[0]!))!;
  expect(big.status).toBe('Indexed');
  expect(big.chunkCount).toBeGreaterThan(64);
  const own = calls.seen.filter((c) => c.requestId.startsWith(`${ids[0]}-embed-`));
  expect(own.map((c) => c.inputs).reduce((a, b) => a + b, 0)).toBe(big.chunkCount);
  expect(calls.seen.filter((c) => !own.includes(c)).map((c) => c.inputs)).toEqual([1]);
});

it('a delivery is indexed a wave of originals at a time, and waves left past its time budget are retried', async () => {
  const { id: kbId } = await newBase(owner);
  const { ids } = await uploadTogether(
    owner,
    Array.from({ length: 4 }, (_, n) => ({ kbId, ...abstract(n) })),
  );
  const refs = ids.map((documentId) => ({ tenantId, kbId, documentId }));
  // As the worker runs it (its events' subscribers wired).
  const { handler } = await import('#functions/knowledge-worker/index.ts');
  const asWorker = (opts: Parameters<typeof indexDocuments>[1]) =>
    withWiring(handler.wiring, () => indexDocuments(refs, opts));

  // Waves of one document each, and no time after the first: the others are left for a redelivery.
  const first = await asWorker({ waveBytes: 1, budgetMs: 0 });
  expect(first[0]).toEqual({ status: 'Indexed', chunks: 1 });
  for (const out of first.slice(1)) expect(String(out)).toMatch(/Left for a redelivery/);
  expect(calls.seen.map((c) => c.inputs)).toEqual([1]);
  expect((await documentOf(owner, kbId, ids[1]!))!.status).toBe('Processing');

  // The redelivery, in waves of one: one embedding call each.
  const again = await asWorker({ waveBytes: 1 });
  expect(again.slice(1)).toEqual(Array(3).fill({ status: 'Indexed', chunks: 1 }));
  expect(calls.seen.map((c) => c.inputs)).toEqual([1, 1, 1, 1]);
  expect(testVectors.size(kbId)).toBe(4);
});
