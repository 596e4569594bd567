import { beforeAll, describe, expect, it, vi } from 'vitest';
import { failStuckDocuments } from '#areas/knowledge/stuck.ts';
import { documentKey } from '#areas/knowledge/records.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/data/keys.ts';
import { listNewestFirst } from '#shared/data/collection.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { queueSender } from '#shared/platform/ports.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { testVectors } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';
import {
  addText,
  documentOf,
  KB,
  newBase,
  retrieveAs,
  settled,
  useKnowledgeStandIns,
} from '#test/support/knowledge.ts';

useKnowledgeStandIns();

let tenantA: string;
let ownerA: string;
let memberA: string;
let ownerB: string;
let admin: string;

beforeAll(async () => {
  tenantA = await newTenant({ maxKnowledgeBases: 50 });
  const tenantB = await newTenant({ maxKnowledgeBases: 50 });
  ownerA = await tokenFor({ tenantId: tenantA });
  memberA = await tokenFor({ tenantId: tenantA, role: 'TenantMember' });
  ownerB = await tokenFor({ tenantId: tenantB });
  admin = await tokenFor({ role: 'SystemAdmin' });
});

const auditOf = async (entityId: string) =>
  (
    await listNewestFirst<{ action: string }>(keys.platformCollection('AUDIT'), {
      page: 1,
      pageSize: 100,
      where: { entityId },
    })
  ).items.map((a) => a.action);

const SENTENCES = {
  lighthouse: 'The lighthouse keeper logs the fog horn hours in a brass ledger every night.',
  bakery: 'Our bakery proofs sourdough loaves for sixteen hours before baking them at dawn.',
  volcano: 'Magma chambers beneath the volcano swell before an eruption, tilting the crater floor.',
};

describe('knowledge bases', () => {
  it('creates with defaults, reads, renames, lists with search, and refuses a bad overlap', async () => {
    const created = await invoke('POST', KB, {
      token: ownerA,
      body: { name: 'Handbook', description: 'Staff handbook', documentCount: 99, tenantId: tenantA },
    });
    expect(created).toAnswer(201);
    const kb = created.json.result;
    expect(kb).toMatchObject({ name: 'Handbook', chunkSize: 512, chunkOverlap: 64, documentCount: 0, chunkCount: 0 });
    expect((await invoke('GET', `${KB}/${kb.id}`, { token: memberA })).json.result.name).toBe('Handbook');
    const renamed = await invoke('PUT', `${KB}/${kb.id}`, { token: ownerA, body: { name: 'Handbook 2' } });
    expect(renamed.json.result).toMatchObject({ name: 'Handbook 2', description: 'Staff handbook' });
    const listed = await invoke('GET', KB, { token: ownerA, query: { search: 'handbook 2' } });
    expect(listed.json.result.items.map((b: { id: string }) => b.id)).toEqual([kb.id]);
    expect(await auditOf(kb.id)).toEqual(expect.arrayContaining(['create', 'update']));

    const bad = await invoke('POST', KB, { token: ownerA, body: { name: 'x', chunkSize: 200, chunkOverlap: 101 } });
    expect(bad).toAnswer(400);
    expect(bad.json.error.details[0].path).toBe('body.chunkOverlap');
    expect(await invoke('POST', KB, { token: ownerA, body: { name: 'x', chunkSize: 99 } })).toAnswer(400);
  });

  it('members read but do not write; another tenant sees 404; a SystemAdmin names a base by id', async () => {
    const kb = await newBase(ownerA);
    expect(await invoke('POST', KB, { token: memberA, body: { name: 'nope' } })).toAnswer(403);
    expect(await invoke('GET', `${KB}/${kb.id}`, { token: ownerB })).toAnswer(404);
    expect(await invoke('DELETE', `${KB}/${kb.id}`, { token: ownerB })).toAnswer(404);
    expect(await invoke('GET', `${KB}/${kb.id}`, { token: admin })).toAnswer(200);
  });

  it('holds maxKnowledgeBases exactly under twenty parallel creates, and frees the slot on delete', async () => {
    const tenant = await newTenant({ maxKnowledgeBases: 3 });
    const owner = await tokenFor({ tenantId: tenant });
    await newBase(owner);
    await newBase(owner);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => invoke('POST', KB, { token: owner, body: { name: `Race ${i}` } })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 201)) expect(a.status, a.text).toBe(409);
    const list = await invoke('GET', KB, { token: owner });
    expect(list.json.result.totalCount).toBe(3);
    const over = await invoke('POST', KB, { token: owner, body: { name: 'over' } });
    expect(over.json.error.code).toBe('PLAN_LIMIT_REACHED');

    expect(await invoke('DELETE', `${KB}/${list.json.result.items[0].id}`, { token: owner })).toAnswer(204);
    expect(await invoke('POST', KB, { token: owner, body: { name: 'again' } })).toAnswer(201);
  });

  it('a tenant whose plan has no knowledge bases is refused', async () => {
    const owner = await tokenFor({ tenantId: await newTenant({ maxKnowledgeBases: 0 }) });
    const res = await invoke('POST', KB, { token: owner, body: { name: 'none' } });
    expect(res).toAnswer(409, 'PLAN_LIMIT_REACHED');
  });
});

describe('documents and retrieval', () => {
  let kbId: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    kbId = (await newBase(ownerA)).id;
    for (const [title, sentence] of Object.entries(SENTENCES)) {
      const res = await addText(ownerA, kbId, title, `${sentence}\n\nFiller paragraph about ${title} matters.`);
      expect(res).toAnswer(202);
      expect(res.json.result).toMatchObject({ title, status: 'Queued', contentType: 'text/plain', progressPercent: 0 });
      ids[title] = res.json.result.id;
    }
  });

  it('indexes JSON text in the worker: Indexed, counts on the document and the base, chunks readable', async () => {
    const doc = await settled(ownerA, kbId, ids.lighthouse!);
    expect(doc).toMatchObject({ status: 'Indexed', progressPercent: 100, error: null });
    expect(doc.chunkCount).toBeGreaterThan(0);
    expect(doc.tokenCount).toBeGreaterThan(10);
    const base = (await invoke('GET', `${KB}/${kbId}`, { token: memberA })).json.result;
    expect(base.documentCount).toBe(3);
    const docs = await Promise.all(Object.values(ids).map((id) => documentOf(ownerA, kbId, id)));
    expect(base.chunkCount).toBe(docs.reduce((n, d) => n + d!.chunkCount, 0));
    const chunks = await invoke('GET', `${KB}/${kbId}/documents/${ids.lighthouse}/chunks`, { token: memberA });
    expect(chunks).toAnswer(200);
    expect(chunks.json.result.items[0]).toMatchObject({ documentId: ids.lighthouse, position: 0 });
    expect(chunks.json.result.items[0].text).toContain(SENTENCES.lighthouse);
    expect(chunks.json.result.totalCount).toBe(doc.chunkCount);
    expect(await auditOf(ids.lighthouse!)).toEqual(expect.arrayContaining(['upload', 'start-indexing', 'indexed']));
  });

  it('retrieves the chunk holding a sentence first in all three modes, with the components shown', async () => {
    for (const mode of ['keyword', 'semantic', 'hybrid'] as const) {
      const hits = await retrieveAs(memberA, kbId, { query: 'fog horn hours in the brass ledger', mode, topK: 3 });
      expect(hits[0]?.documentId, mode).toBe(ids.lighthouse);
      expect(hits[0]!.documentTitle).toBe('lighthouse');
      expect(hits[0]!.text).toContain(SENTENCES.lighthouse);
      if (mode === 'keyword') expect(hits[0]).toMatchObject({ keywordScore: 1, vectorScore: null, score: 1 });
      if (mode === 'semantic') expect(hits[0]!.keywordScore).toBeNull();
      if (mode === 'hybrid')
        for (const h of hits) expect(h.score).toBeCloseTo(0.8 * h.keywordScore! + 0.2 * h.vectorScore!, 5);
    }
  });

  it('gives the same scores for the same inputs, honours topK and scoreThreshold', async () => {
    const q = { query: 'sourdough loaves baked at dawn', mode: 'hybrid', topK: 5 };
    const first = await retrieveAs(ownerA, kbId, q);
    const second = await retrieveAs(ownerA, kbId, q);
    expect(second).toEqual(first);
    expect(first[0]!.documentId).toBe(ids.bakery);
    expect((await retrieveAs(ownerA, kbId, { ...q, topK: 1 })).length).toBe(1);
    const threshold = first[0]!.score;
    const strict = await retrieveAs(ownerA, kbId, { ...q, scoreThreshold: threshold });
    expect(strict.every((h) => h.score >= threshold)).toBe(true);
    expect(strict.length).toBeLessThan(first.length);
    expect(await invoke('POST', `${KB}/${kbId}/retrieve`, { token: ownerA, body: { query: 'x', topK: 21 } })).toAnswer(
      400,
    );
  });

  it("never returns another tenant's chunk, even for the same sentence", async () => {
    const kbB = (await newBase(ownerB)).id;
    const res = await addText(ownerB, kbB, 'twin', SENTENCES.volcano);
    await settled(ownerB, kbB, res.json.result.id);
    for (const mode of ['keyword', 'semantic', 'hybrid']) {
      const a = await retrieveAs(ownerA, kbId, { query: SENTENCES.volcano, mode });
      const b = await retrieveAs(ownerB, kbB, { query: SENTENCES.volcano, mode });
      expect(a[0]!.documentId).toBe(ids.volcano);
      expect(b.map((h) => h.documentId)).toEqual([res.json.result.id]);
      expect(a.map((h) => h.documentId)).not.toContain(res.json.result.id);
    }
    expect(await invoke('POST', `${KB}/${kbB}/retrieve`, { token: ownerA, body: { query: 'magma' } })).toAnswer(404);
    expect(await invoke('GET', `${KB}/${kbB}/documents/${res.json.result.id}/chunks`, { token: ownerA })).toAnswer(404);
  });

  it("asks the vector store only within the caller's tenant and base", async () => {
    // Retrieval drops a hit outside the tenant or base again afterwards, so only the query itself shows the filter.
    const query = vi.spyOn(testVectors, 'query');
    try {
      for (const mode of ['semantic', 'hybrid'])
        await retrieveAs(memberA, kbId, { query: 'magma under the volcano', mode });
      expect(query).toHaveBeenCalledTimes(2);
      for (const [index, q] of query.mock.calls) {
        expect(index).toEqual({ tenantId: tenantA, kbId });
        expect(q.filter).toEqual({ tenantId: tenantA, kbId });
      }
    } finally {
      query.mockRestore();
    }
  });

  it('finds a word written as code (`maxAttempts`) by the plain word', async () => {
    const res = await addText(ownerA, kbId, 'config', 'Set `retryBudgetLimit` to five in the settings file.');
    expect((await settled(ownerA, kbId, res.json.result.id)).status).toBe('Indexed');
    const hits = await retrieveAs(ownerA, kbId, { query: 'retryBudgetLimit', mode: 'keyword' });
    expect(hits.map((h) => h.documentId)).toEqual([res.json.result.id]);
  });

  it('a deleted document leaves retrieval at once, then its chunks and vectors are removed', async () => {
    const kb = (await newBase(ownerA)).id;
    const doc = (await addText(ownerA, kb, 'temp', 'Quartz crystals resonate at a precise frequency in watches.')).json
      .result;
    await settled(ownerA, kb, doc.id);
    expect((await retrieveAs(ownerA, kb, { query: 'quartz watches', mode: 'keyword' }))[0]?.documentId).toBe(doc.id);
    expect(testVectors.size(kb)).toBeGreaterThan(0);
    // The purge is queued: held here, so what retrieval answers meanwhile is the delete's own doing.
    const deliver = await queueSender();
    const held: Parameters<typeof deliver.send>[] = [];
    queueSender.install({ send: async (...message) => void held.push(message) });
    try {
      expect(await invoke('DELETE', `${KB}/${kb}/documents/${doc.id}`, { token: ownerA })).toAnswer(204);
      expect(testVectors.size(kb)).toBeGreaterThan(0);
      for (const mode of ['keyword', 'semantic', 'hybrid'])
        expect(await retrieveAs(ownerA, kb, { query: 'quartz watches', mode })).toEqual([]);
    } finally {
      queueSender.install(deliver);
    }
    for (const message of held) await deliver.send(...message);
    expect(testVectors.size(kb)).toBe(0);
    const base = (await invoke('GET', `${KB}/${kb}`, { token: ownerA })).json.result;
    expect(base).toMatchObject({ documentCount: 0, chunkCount: 0 });
    expect(await invoke('DELETE', `${KB}/${kb}/documents/${doc.id}`, { token: ownerA })).toAnswer(404);
  });

  it('a deleted base answers 404 everywhere and its vectors are dropped', async () => {
    const kb = (await newBase(ownerA)).id;
    const doc = (await addText(ownerA, kb, 'gone', 'Pelicans skim the harbour at low tide.')).json.result;
    await settled(ownerA, kb, doc.id);
    expect(await invoke('DELETE', `${KB}/${kb}`, { token: ownerA })).toAnswer(204);
    expect(await invoke('POST', `${KB}/${kb}/retrieve`, { token: ownerA, body: { query: 'pelicans' } })).toAnswer(404);
    expect(await invoke('GET', `${KB}/${kb}/documents`, { token: ownerA })).toAnswer(404);
    expect(testVectors.size(kb)).toBe(0);
  });

  it('ends a document stuck past its stage deadline Failed, on the list and through the scheduler sweep', async () => {
    const kb = (await newBase(ownerA)).id;
    const stuck = async () => {
      const doc = (await addText(ownerA, kb, 'stuck', 'Anything at all.')).json.result;
      await settled(ownerA, kb, doc.id);
      // As if the worker died mid-run an hour ago.
      await ddb().send(
        new UpdateCommand({
          TableName: config.tableName,
          Key: documentKey(tenantA, kb, doc.id),
          UpdateExpression: 'SET #s = :p, stageDeadline = :d, gsi2pk = :gpk, gsi2sk = :gsk',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: {
            ':p': 'Processing',
            ':d': new Date(Date.now() - 3_600_000).toISOString(),
            ':gpk': 'PLATFORM#KB_PENDING',
            ':gsk': `${new Date(Date.now() - 3_600_000).toISOString()}#${tenantA}#${kb}#${doc.id}`,
          },
        }),
      );
      return doc.id as string;
    };
    const listed = await stuck();
    const d = await documentOf(ownerA, kb, listed);
    expect(d).toMatchObject({ status: 'Failed' });
    expect(d!.error).toMatch(/did not finish in time/);

    const swept = await stuck();
    expect(await failStuckDocuments()).toBeGreaterThanOrEqual(1);
    expect(await documentOf(ownerA, kb, swept)).toMatchObject({ status: 'Failed' });
  });
});
