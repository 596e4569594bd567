import { seedCatalog } from '#areas/llm-gateway/catalog.ts';
import { vectorStore } from '#areas/knowledge/vectors/port.ts';
import { fileVectorStore } from '#local/knowledge-vectors.ts';
import { importWorker, localQueue, type WorkerHandler } from '#local/local-queue.ts';
import { startS3 } from '#local/s3.ts';
import { queueSender } from '#shared/platform/ports.ts';
import { s3 as s3Client } from '#shared/platform/s3.ts';
import { keys } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invoke, print, tokenFor, type Harness } from './harness.ts';
import { median, percentile, round } from './stats.ts';

/**
 * AI knowledge at 1,000 and 10,000 chunks in one base (100,000 in the standalone phase): documents
 * uploaded through the route and indexed by the knowledge worker's own handler through the local
 * queue (SQS events, AT_ONCE documents in flight), each document's run timed; then retrieve
 * latency through the full route stack, warm (p50, p95 per mode), and cold: a fresh Node process per
 * query that imports the retrieval code and answers once, with its peak memory. What one retrieve
 * costs: DynamoDB requests, vector-store requests. The vector store is the local stand-in (in
 * memory; S3 Vectors' latency is not measured here). The base's chunkSize is 100 tokens.
 */
export interface KnowledgePoint {
  chunks: number;
  documents: number;
  indexSeconds: number;
  chunksPerSecond: number;
  /** Mean ms per chunk of a document's indexing run, over the first and the last tenth of the documents. */
  firstTenthMsPerChunk: number;
  lastTenthMsPerChunk: number;
  /** DynamoDB requests per chunk indexed, first and last tenth: the work a document costs. */
  firstTenthRequestsPerChunk: number;
  lastTenthRequestsPerChunk: number;
  /**
   * The floor beside them: ms of one plain PutItem into the same table, sampled after every batch
   * of documents, first and last tenth. If it grows as indexing does, the slope is the table's.
   */
  firstTenthFloorMsPerWrite: number;
  lastTenthFloorMsPerWrite: number;
  retrieve: {
    mode: string;
    p50Ms: number;
    p95Ms: number;
    /** GET of the base by id, interleaved with the retrieves: what the machine and the route stack cost. */
    floorP50Ms: number;
    floorP95Ms: number;
    coldP50Ms: number;
    coldP95Ms: number;
    coldPeakRssMb: number;
    /** The process's memory once the vector stand-in is loaded, before retrieving: deployed, S3 Vectors holds it. */
    coldStandInRssMb: number;
    dynamoRequests: number;
    vectorRequests: number;
  }[];
}

export interface KnowledgeBench {
  note: string;
  points: KnowledgePoint[];
}

const CHUNKS_PER_DOCUMENT = 250;
const RETRIEVES = Number(process.env.BENCH_KNOWLEDGE_RETRIEVES ?? 40);
const COLD_RUNS = Number(process.env.BENCH_KNOWLEDGE_COLD ?? 5);
const AT_ONCE = 4;
const FLOOR_WRITES = 20;

/** FLOOR_WRITES sequential PutItems of about a posting's size, timed: DynamoDB's own cost per write now. */
async function floorMsPerWrite(): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < FLOOR_WRITES; i++)
    await ddb().send(
      new PutCommand({
        TableName: config.tableName,
        // A key of its own kind, which nothing reads: only the write's cost matters.
        Item: { ...keys.unique('BENCH_FLOOR', crypto.randomUUID()), entries: 'x'.repeat(800) },
      }),
    );
  return (performance.now() - started) / FLOOR_WRITES;
}

const queryOf = (i: number, size: number) =>
  `${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} number ${(i * 97) % size}-2`;

/** One cold retrieve in a fresh process (bench/knowledge-cold.ts). */
function coldRetrieve(
  args: string[],
): Promise<{ ms: number; matches: number; peakRssMb: number; standInRssMb: number }> {
  const script = new URL('./knowledge-cold.ts', import.meta.url).pathname;
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', script, ...args],
      { maxBuffer: 1 << 20, timeout: 120_000 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`cold retrieve: ${err.message} ${stderr.slice(-500)}`));
        resolve(JSON.parse(stdout.trim().split('\n').pop()!));
      },
    ),
  );
}
const WORDS = (
  'ledger harbour glacier telescope saffron beekeeper volcano quartz penguin lighthouse bakery orchard ' +
  'compass lantern meadow canyon river summit forest island valley market engine signal archive'
).split(' ');

/** About 100 tokens per paragraph: five sentences of a dozen words, different in every paragraph. */
function paragraph(seed: number): string {
  const sentences: string[] = [];
  for (let s = 0; s < 5; s++) {
    const words = Array.from(
      { length: 12 },
      (_, w) => WORDS[(seed * 7 + s * 13 + w * 5 + ((seed >> 3) % 11)) % WORDS.length],
    );
    sentences.push(`${words.join(' ')} number ${seed}-${s}.`);
  }
  return sentences.join(' ');
}

/** A tenant room for a bench corpus (10,000 chunks, or SciFact's abstracts, are over a million embedding tokens: past any plan's month allowance). */
export async function seedTenant() {
  const tenantId = crypto.randomUUID();
  await ddb().send(
    new PutCommand({
      TableName: config.tableName,
      Item: { ...keys.platformItem('TENANT', tenantId), id: tenantId, maxKnowledgeBases: 10, maxTokensPerMonth: 1e9 },
    }),
  );
  // A fresh access token per request: indexing 10,000 chunks on a busy machine outlasts one (15 min).
  return { tenantId, token: () => tokenFor(tenantId, 'TenantOwner') };
}

export async function measureKnowledge(
  h: Harness,
  sizes: readonly number[] = [1_000, 10_000],
): Promise<KnowledgeBench> {
  // Embeddings go through the gateway's catalog (its local embedding model).
  await seedCatalog();
  const dir = mkdtempSync(join(tmpdir(), 'bench-knowledge-s3-'));
  const s3 = await startS3(dir);
  s3Client.install(undefined);
  const vectorsDir = mkdtempSync(join(tmpdir(), 'bench-knowledge-vectors-'));
  const vectors = fileVectorStore(vectorsDir);
  vectorStore.install(vectors);
  // The worker's real handler, each run timed; its batch's requests and floor are filled in after the batch.
  const runs: { ms: number; requests: number; floorMs: number }[] = [];
  const { handler } = (await import('../functions/knowledge-worker/index.ts')) as { handler: WorkerHandler };
  const queue = localQueue({
    dataDir: vectorsDir,
    maxAttempts: 1,
    // The embeddings' records go to the usage queue, its own worker's.
    loadWorker: async (name) =>
      name !== 'indexing'
        ? importWorker(name)
        : async (event, context) => {
            const t0 = performance.now();
            const out = await handler(event, context);
            runs.push({ ms: performance.now() - t0, requests: 0, floorMs: 0 });
            return out;
          },
  });
  // Put back afterwards: a later phase counting its own requests must not see this queue's deliveries.
  const harnessQueue = await queueSender();
  queueSender.install(queue);

  const points: KnowledgePoint[] = [];
  try {
    for (const size of sizes) {
      const { tenantId, token } = await seedTenant();
      const kb = await invoke({
        method: 'POST',
        path: '/api/knowledge/bases',
        token: await token(),
        body: { name: `Bench ${size}`, chunkSize: 100, chunkOverlap: 0 },
      });
      if (kb.status !== 201) throw new Error(`knowledge base: ${kb.status} ${JSON.stringify(kb.json)}`);
      const kbId = kb.json.result.id as string;
      // Documents of about CHUNKS_PER_DOCUMENT chunks go through the upload route and the queue,
      // AT_ONCE at a time, until the base holds `size` chunks; each worker run is timed.
      const planned = Math.ceil(size / CHUNKS_PER_DOCUMENT);
      runs.length = 0;
      const indexStarted = performance.now();
      for (let d = 0; d < planned; d += AT_ONCE) {
        const requestsBefore = h.recorder.requests.length;
        const runsBefore = runs.length;
        await Promise.all(
          Array.from({ length: Math.min(AT_ONCE, planned - d) }, async (_, k) => {
            const n = d + k;
            const wanted = Math.min(CHUNKS_PER_DOCUMENT, size - n * CHUNKS_PER_DOCUMENT);
            const paragraphs = Array.from({ length: Math.max(1, Math.round(wanted * 0.8)) }, (_, p) =>
              paragraph(n * CHUNKS_PER_DOCUMENT + p),
            );
            const res = await invoke({
              method: 'POST',
              path: `/api/knowledge/bases/${kbId}/documents`,
              token: await token(),
              body: { title: `Doc ${n}`, text: paragraphs.join('\n\n') },
            });
            if (res.status !== 202) throw new Error(`upload: ${res.status} ${JSON.stringify(res.json)}`);
          }),
        );
        await queue.drain();
        // The batch's requests (uploads included) shared by its runs; the floor sampled right after.
        const batch = runs.slice(runsBefore);
        const requests = (h.recorder.requests.length - requestsBefore) / batch.length;
        const floorMs = await floorMsPerWrite();
        for (const r of batch) Object.assign(r, { requests, floorMs });
      }
      const indexSeconds = (performance.now() - indexStarted) / 1000;
      if (queue.deadLetters().length) throw new Error(`dead letters: ${JSON.stringify(queue.deadLetters())}`);
      const baseNow = await invoke({ method: 'GET', path: `/api/knowledge/bases/${kbId}`, token: await token() });
      const chunks = baseNow.json.result.chunkCount as number;
      const documents = baseNow.json.result.documentsByStatus.Indexed as number;
      if (documents !== planned) throw new Error(`indexed ${documents} of ${planned}: ${JSON.stringify(baseNow.json)}`);
      const tenth = Math.max(1, Math.floor(runs.length / 10));
      const perChunk = (rs: typeof runs, of: 'ms' | 'requests' = 'ms') =>
        rs.reduce((n, r) => n + r[of], 0) / (rs.length * CHUNKS_PER_DOCUMENT);
      const floor = (rs: typeof runs) => rs.reduce((n, r) => n + r.floorMs, 0) / rs.length;
      // The last document may be short: the tenths compare full documents only.
      const full = runs.slice(0, size % CHUNKS_PER_DOCUMENT ? -1 : undefined);

      const retrieve: KnowledgePoint['retrieve'] = [];
      for (const mode of ['keyword', 'semantic', 'hybrid']) {
        const times: number[] = [];
        const floorTimes: number[] = [];
        let dynamo = 0;
        let vector = 0;
        // One warm-up call: the route's modules loaded and connections open, as a warm instance has them.
        await invoke({
          method: 'POST',
          path: `/api/knowledge/bases/${kbId}/retrieve`,
          token: await token(),
          body: { query: 'warm up', mode },
        });
        for (let i = 0; i < RETRIEVES; i++) {
          const query = queryOf(i, size);
          const beforeDdb = h.recorder.requests.length;
          const beforeVectors = vectors.requests;
          const bearer = await token();
          const started = performance.now();
          const res = await invoke({
            method: 'POST',
            path: `/api/knowledge/bases/${kbId}/retrieve`,
            token: bearer,
            body: { query, mode, topK: 5 },
          });
          times.push(performance.now() - started);
          if (res.status !== 200 || !res.json.result.length)
            throw new Error(`retrieve ${mode}: ${res.status} ${JSON.stringify(res.json).slice(0, 200)}`);
          dynamo += h.recorder.requests.length - beforeDdb;
          vector += vectors.requests - beforeVectors;
          // The floor, interleaved: the same route stack and token check around one GetItem.
          const floorStarted = performance.now();
          const floor = await invoke({ method: 'GET', path: `/api/knowledge/bases/${kbId}`, token: bearer });
          floorTimes.push(performance.now() - floorStarted);
          if (floor.status !== 200) throw new Error(`floor: ${floor.status}`);
        }
        const cold: { ms: number; peakRssMb: number; standInRssMb: number }[] = [];
        for (let i = 0; i < COLD_RUNS; i++) {
          const run = await coldRetrieve([
            config.tableName,
            h.dynamo.endpoint,
            tenantId,
            kbId,
            mode,
            queryOf(i + 1000, size),
            vectorsDir,
          ]);
          if (!run.matches) throw new Error(`cold retrieve ${mode} found nothing`);
          cold.push(run);
        }
        retrieve.push({
          mode,
          p50Ms: round(median(times), 1),
          p95Ms: round(percentile(times, 95), 1),
          floorP50Ms: round(median(floorTimes), 1),
          floorP95Ms: round(percentile(floorTimes, 95), 1),
          coldP50Ms: round(median(cold.map((c) => c.ms)), 0),
          coldP95Ms: round(
            percentile(
              cold.map((c) => c.ms),
              95,
            ),
            0,
          ),
          coldPeakRssMb: round(Math.max(...cold.map((c) => c.peakRssMb)), 0),
          coldStandInRssMb: round(Math.max(...cold.map((c) => c.standInRssMb)), 0),
          dynamoRequests: round(dynamo / RETRIEVES, 2),
          vectorRequests: round(vector / RETRIEVES, 2),
        });
      }
      points.push({
        chunks,
        documents,
        indexSeconds: round(indexSeconds, 1),
        chunksPerSecond: round(chunks / indexSeconds, 0),
        firstTenthMsPerChunk: round(perChunk(full.slice(0, tenth)), 2),
        lastTenthMsPerChunk: round(perChunk(full.slice(-tenth)), 2),
        firstTenthRequestsPerChunk: round(perChunk(full.slice(0, tenth), 'requests'), 2),
        lastTenthRequestsPerChunk: round(perChunk(full.slice(-tenth), 'requests'), 2),
        firstTenthFloorMsPerWrite: round(floor(full.slice(0, tenth)), 2),
        lastTenthFloorMsPerWrite: round(floor(full.slice(-tenth)), 2),
        retrieve,
      });
    }
  } finally {
    await queue.drain();
    queueSender.install(harnessQueue);
    vectorStore.install(undefined);
    await s3.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(vectorsDir, { recursive: true, force: true });
  }
  const bench = {
    note: 'local stand-ins: DynamoDB Local, s3rver, the vector stand-in (float32, every vector compared) and the local hashing embedder; chunkSize 100',
    points,
  };
  printKnowledge(bench);
  return bench;
}

export function printKnowledge(k: KnowledgeBench) {
  print('\nAI knowledge (one base; retrieve through the full route stack warm, and in a fresh process cold)');
  print(
    'chunks  docs  index s  chunks/s  ms/chunk 1st/last tenth  mode      p50 ms  p95 ms  floor p50/p95  cold p50  cold p95  cold MB  (stand-in)  DynamoDB/req  vector/req',
  );
  for (const p of k.points)
    for (const [i, r] of p.retrieve.entries())
      print(
        [
          i ? ''.padEnd(6) : String(p.chunks).padEnd(6),
          i ? ''.padEnd(4) : String(p.documents).padEnd(4),
          i ? ''.padEnd(7) : String(p.indexSeconds).padEnd(7),
          i ? ''.padEnd(8) : String(p.chunksPerSecond).padEnd(8),
          i ? ''.padEnd(23) : `${p.firstTenthMsPerChunk} / ${p.lastTenthMsPerChunk}`.padEnd(23),
          r.mode.padEnd(8),
          String(r.p50Ms).padStart(6),
          String(r.p95Ms).padStart(6),
          `${r.floorP50Ms} / ${r.floorP95Ms}`.padStart(13),
          String(r.coldP50Ms).padStart(8),
          String(r.coldP95Ms).padStart(8),
          String(r.coldPeakRssMb).padStart(7),
          (r.coldStandInRssMb ? `(${r.coldStandInRssMb})` : '').padStart(10),
          String(r.dynamoRequests).padStart(12),
          String(r.vectorRequests).padStart(10),
        ].join('  '),
      );
  for (const p of k.points)
    print(
      `${p.chunks} chunks, first / last tenth: DynamoDB requests per chunk ${p.firstTenthRequestsPerChunk} / ${p.lastTenthRequestsPerChunk}, ` +
        `floor ms per PutItem ${p.firstTenthFloorMsPerWrite} / ${p.lastTenthFloorMsPerWrite}`,
    );
  print(`(${k.note})`);
}
