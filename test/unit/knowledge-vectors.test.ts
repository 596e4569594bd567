import {
  CreateIndexCommand,
  DeleteIndexCommand,
  DeleteVectorsCommand,
  GetVectorsCommand,
  PutVectorsCommand,
  QueryVectorsCommand,
  S3VectorsClient,
} from '@aws-sdk/client-s3vectors';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileVectorStore, memoryVectorStore } from '#local/knowledge-vectors.ts';
import { journalLines } from '#local/vector-journal.ts';
import { createS3VectorStore } from '#areas/knowledge/vectors/s3-vectors.ts';
import type { VectorRecord } from '#areas/knowledge/vectors/store.ts';

const offline = { region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
const index = { tenantId: 't-1', kbId: '0b6b1c6e-0000-4000-8000-000000000001' };
const meta = (documentId: string, position: number) => ({ ...index, documentId, position });
const unit = (i: number, dims = 4) => Array.from({ length: dims }, (_, j) => (j === i ? 1 : 0));

describe('S3 Vectors adapter (aws-sdk-client-mock)', () => {
  const client = new S3VectorsClient(offline);
  const mock = mockClient(client);
  let store: Awaited<ReturnType<typeof createS3VectorStore>>;
  const previous = process.env.KNOWLEDGE_VECTOR_BUCKET;
  beforeAll(async () => {
    store = await createS3VectorStore(client);
    process.env.KNOWLEDGE_VECTOR_BUCKET = 'kb-vectors';
  });
  afterAll(() => {
    process.env.KNOWLEDGE_VECTOR_BUCKET = previous;
  });
  beforeEach(() => mock.reset());

  it('creates one cosine float32 index per base, and treats an existing one as done', async () => {
    // Prepare
    mock.on(CreateIndexCommand).rejectsOnce(Object.assign(new Error('exists'), { name: 'ConflictException' }));
    // Act
    await store.ensureIndex(index, 256);
    // Assess
    expect(mock.commandCalls(CreateIndexCommand)[0]!.args[0].input).toMatchObject({
      vectorBucketName: 'kb-vectors',
      indexName: `kb-${index.kbId}`,
      dataType: 'float32',
      dimension: 256,
      distanceMetric: 'cosine',
    });
  });

  it('writes at most 500 vectors per PutVectors call, metadata included', async () => {
    mock.on(PutVectorsCommand).resolves({});
    const vectors: VectorRecord[] = Array.from({ length: 1_201 }, (_, i) => ({
      key: `k${i}`,
      vector: unit(i % 4),
      metadata: meta('d', i),
    }));
    await store.put(index, vectors);
    const calls = mock.commandCalls(PutVectorsCommand);
    expect(calls.map((c) => c.args[0].input.vectors!.length)).toEqual([500, 500, 201]);
    expect(calls[0]!.args[0].input.vectors![1]).toEqual({
      key: 'k1',
      data: { float32: unit(1) },
      metadata: meta('d', 1),
    });
  });

  it('queries with the tenant and base as a metadata filter, caps topK at 100 and turns distance into similarity', async () => {
    mock.on(QueryVectorsCommand).resolves({
      vectors: [{ key: 'a', distance: 0.25, metadata: meta('d1', 3) }],
      distanceMetric: 'cosine',
    });
    const hits = await store.query(index, {
      vector: unit(0),
      topK: 500,
      filter: { tenantId: 't-1', kbId: index.kbId },
    });
    expect(hits).toEqual([{ key: 'a', score: 0.75, metadata: meta('d1', 3) }]);
    expect(mock.commandCalls(QueryVectorsCommand)[0]!.args[0].input).toMatchObject({
      indexName: `kb-${index.kbId}`,
      topK: 100,
      filter: { $and: [{ tenantId: { $eq: 't-1' } }, { kbId: { $eq: index.kbId } }] },
      returnMetadata: true,
      returnDistance: true,
    });
  });

  it('answers nothing for a missing index, reads vectors back, deletes in batches and drops the index', async () => {
    mock.on(QueryVectorsCommand).rejects(Object.assign(new Error('no index'), { name: 'NotFoundException' }));
    expect(await store.query(index, { vector: unit(0), topK: 5, filter: {} })).toEqual([]);
    mock
      .on(GetVectorsCommand)
      .resolves({ vectors: [{ key: 'a', data: { float32: unit(2) }, metadata: meta('d', 0) }] });
    expect(await store.get(index, ['a', 'b'])).toEqual([{ key: 'a', vector: unit(2), metadata: meta('d', 0) }]);
    mock.on(DeleteVectorsCommand).resolves({});
    await store.delete(
      index,
      Array.from({ length: 501 }, (_, i) => `k${i}`),
    );
    expect(mock.commandCalls(DeleteVectorsCommand).map((c) => c.args[0].input.keys!.length)).toEqual([500, 1]);
    mock.on(DeleteIndexCommand).rejects(Object.assign(new Error('gone'), { name: 'NotFoundException' }));
    await expect(store.dropIndex(index)).resolves.toBeUndefined();
    expect(store.requests).toBeGreaterThanOrEqual(6);
  });

  it('passes other failures on', async () => {
    mock.on(PutVectorsCommand).rejects(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
    await expect(store.put(index, [{ key: 'a', vector: unit(0), metadata: meta('d', 0) }])).rejects.toThrow(
      'slow down',
    );
  });
});

describe('the local vector stand-in keeps S3 Vectors semantics', () => {
  it('refuses topK over 100, more than 500 vectors per write and a wrong dimension', async () => {
    const store = memoryVectorStore();
    await store.ensureIndex(index, 4);
    await expect(store.query(index, { vector: unit(0), topK: 101, filter: {} })).rejects.toThrow(/topK/);
    const many = Array.from({ length: 501 }, (_, i) => ({ key: `k${i}`, vector: unit(0), metadata: meta('d', i) }));
    await expect(store.put(index, many)).rejects.toThrow(/500/);
    await expect(store.put(index, [{ key: 'x', vector: [1, 0], metadata: meta('d', 0) }])).rejects.toThrow(/dimension/);
  });

  it('filters on metadata during the search, so a filtered query may return fewer than topK', async () => {
    const store = memoryVectorStore();
    await store.ensureIndex(index, 4);
    await store.put(index, [
      { key: 'mine', vector: unit(0), metadata: meta('d', 0) },
      { key: 'stray', vector: unit(0), metadata: { ...meta('d', 1), tenantId: 'other' } },
      { key: 'far', vector: unit(1), metadata: meta('d', 2) },
    ]);
    const hits = await store.query(index, { vector: unit(0), topK: 10, filter: { tenantId: 't-1', kbId: index.kbId } });
    expect(hits.map((h) => [h.key, h.score])).toEqual([
      ['mine', 1],
      ['far', 0],
    ]);
    expect(await store.query({ ...index, kbId: 'nope' }, { vector: unit(0), topK: 1, filter: {} })).toEqual([]);
  });
});

describe('the local server keeps its vectors between runs (LOCAL_DATA_DIR/knowledge-vectors/)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kb-vectors-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const journal = () => join(dir, 'knowledge-vectors', `kb-${index.kbId}.ndjson`);

  it('reads back what was written, moved and deleted, in a new process as in this one', async () => {
    const first = fileVectorStore(dir);
    await first.ensureIndex(index, 4);
    await first.put(index, [
      { key: 'kept', vector: unit(3), metadata: meta('d', 0) },
      { key: 'gone', vector: unit(3), metadata: meta('d', 1) },
      { key: 'moved', vector: unit(0), metadata: meta('d', 2) },
    ]);
    await first.put(index, [{ key: 'moved', vector: [0, 0, 0.6, 0.8], metadata: meta('d', 3) }]);
    await first.delete(index, ['gone']);
    const second = fileVectorStore(dir);
    const hits = await second.query(index, { vector: unit(3), topK: 5, filter: { tenantId: 't-1' } });
    expect(hits.map((h) => [h.key, h.score, h.metadata.position])).toEqual([
      ['kept', 1, 0],
      ['moved', expect.closeTo(0.8, 6), 3],
    ]);
    expect(second.size(index.kbId)).toBe(2);
  });

  it('appends each write to the index journal rather than rewriting what is there', async () => {
    const store = fileVectorStore(dir);
    await store.ensureIndex(index, 4);
    await store.put(index, [{ key: 'a', vector: unit(0), metadata: meta('d', 0) }]);
    const before = readFileSync(journal(), 'utf8');
    await store.put(index, [{ key: 'b', vector: unit(1), metadata: meta('d', 1) }]);
    const after = readFileSync(journal(), 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length).split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('compacts a journal of mostly rewritten vectors when it is read back, keeping the same answers', async () => {
    const store = fileVectorStore(dir);
    await store.ensureIndex(index, 4);
    for (let round = 0; round < 4; round++)
      await store.put(
        index,
        Array.from({ length: 400 }, (_, i) => ({ key: `k${i}`, vector: unit(i % 4), metadata: meta('d', round) })),
      );
    const grown = statSync(journal()).size;
    const reread = fileVectorStore(dir);
    const hits = await reread.query(index, { vector: unit(2), topK: 3, filter: {} });
    expect(hits.map((h) => [h.key, h.metadata.position])).toEqual([
      ['k10', 3],
      ['k102', 3],
      ['k106', 3],
    ]);
    expect(statSync(journal()).size).toBeLessThan(grown / 2);
    expect(fileVectorStore(dir).size(index.kbId)).toBe(400);
  });

  it('reads a journal in pieces smaller than its lines, as it reads one larger than its buffer', async () => {
    const store = fileVectorStore(dir);
    await store.ensureIndex(index, 4);
    for (let i = 0; i < 5; i++)
      await store.put(
        index,
        Array.from({ length: 20 + i * 40 }, (_, k) => ({
          key: `k${i}-${k}`,
          vector: unit(k % 4),
          metadata: meta('d', k),
        })),
      );
    await store.delete(index, ['k0-0']);
    const whole = readFileSync(journal(), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const size of [7, 64, 1_000, 1 << 20]) expect([...journalLines(journal(), size)]).toEqual(whole);
    expect(whole).toHaveLength(7);
  });

  it('a dropped index leaves no journal, and the old single-file store is moved into journals', async () => {
    const store = fileVectorStore(dir);
    await store.ensureIndex(index, 4);
    await store.dropIndex(index);
    expect(existsSync(journal())).toBe(false);
    writeFileSync(
      join(dir, 'knowledge-vectors.json'),
      JSON.stringify({
        [`kb-${index.kbId}`]: { dimension: 4, vectors: [{ key: 'old', vector: unit(1), metadata: meta('d', 0) }] },
      }),
    );
    const migrated = fileVectorStore(dir);
    expect((await migrated.query(index, { vector: unit(1), topK: 1, filter: {} })).map((h) => h.key)).toEqual(['old']);
    expect(existsSync(join(dir, 'knowledge-vectors.json'))).toBe(false);
  });
});

it('answers what a sort of every vector answers: the topK best by cosine, ties by key, filters applied', async () => {
  // A seeded generator: vectors with repeated values make ties, two tenants make the filter matter.
  let seed = 7;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed % 5) - 2;
  };
  const store = memoryVectorStore();
  await store.ensureIndex(index, 6);
  const records = Array.from({ length: 1_200 }, (_, i) => ({
    key: `k${String(i).padStart(4, '0')}`,
    vector: Array.from({ length: 6 }, next),
    metadata: { ...meta('d', i), tenantId: i % 3 ? 't-1' : 't-2' },
  }));
  // A query between writes leaves scores where the next vectors will go: their padding must not count.
  for (let i = 0; i < records.length; i += 500) {
    await store.put(index, records.slice(i, i + 500));
    await store.query(index, { vector: [1, 1, 1, 1, 1, 1], topK: 1, filter: {} });
  }
  await store.delete(index, ['k0001', 'k0500']);
  const norm = (v: number[]) => Math.hypot(...v);
  for (const query of [
    [1, 0, 0, 0, 0, 0],
    [2, -1, 0, 1, 1, -2],
    [0, 0, 0, 0, 0, 0],
  ]) {
    const expected = records
      .filter((r) => r.metadata.tenantId === 't-1' && r.key !== 'k0001' && r.key !== 'k0500')
      .map((r) => {
        const dot = r.vector.reduce((n, x, i) => n + x * query[i]!, 0);
        const d = norm(r.vector) * norm(query);
        return { key: r.key, score: d ? dot / d : 0 };
      })
      .sort((a, b) => b.score - a.score || a.key.localeCompare(b.key))
      .slice(0, 25);
    const hits = await store.query(index, { vector: query, topK: 25, filter: { tenantId: 't-1' } });
    expect(hits.map((h) => h.key)).toEqual(expected.map((e) => e.key));
    for (const [i, h] of hits.entries()) expect(h.score).toBeCloseTo(expected[i]!.score, 5);
  }
});
