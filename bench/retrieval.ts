import { LOCAL_MODEL_IDS, seedCatalog } from '#areas/llm-gateway/catalog.ts';
import { vectorStore } from '#areas/knowledge/vectors/port.ts';
import { fileVectorStore } from '#local/knowledge-vectors.ts';
import { importWorker, localQueue, type WorkerHandler } from '#local/local-queue.ts';
import { batchingOf } from '#shared/queue/batching.ts';
import { startS3 } from '#local/s3.ts';
import { queueSender } from '#shared/platform/ports.ts';
import { s3 as s3Client } from '#shared/platform/s3.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invoke, print, type Harness } from './harness.ts';
import { documentsOf, loadClaims, loadCorpus, ndcgAt, recallAt, sampleOf, type Claim } from './scifact.ts';
import { seedTenant } from './knowledge.ts';
import { median, pool, round } from './stats.ts';

/**
 * Retrieval quality on SciFact (bench/data/scifact): a sample of the abstracts uploaded as JSON
 * {title, text} through the upload route into one base (chunkSize 2000, so an abstract is one
 * chunk), UPLOADS_AT_ONCE requests at a time without waiting for indexing (a 202 is all a client
 * waits for), indexed by the knowledge worker's own handler through the local queue with at most
 * WORKERS deliveries at once of up to BATCH_SIZE documents each (as an event source mapping's
 * concurrency and batch size bound Lambda's); then the sample's training claims asked through the retrieve route in each mode (topK
 * 20, QUERIES_AT_ONCE in parallel), scored over documents (a document ranks where its best chunk
 * does). The embedder is the gateway's local hashing stand-in: semantic figures say nothing of a
 * real model.
 */
export interface ModeFigures {
  mode: string;
  ndcg10: number;
  recall20: number;
  p50Ms: number;
  dynamoRequestsPerQuery: number;
}

export interface RetrievalBench {
  note: string;
  documents: number;
  queries: number;
  ingestSeconds: number;
  documentsPerSecond: number;
  dynamoRequestsPerDocument: number;
  /** The same per command (GetItem, TransactWriteItems...): where a document's requests go. */
  perDocumentByCommand: Record<string, number>;
  modes: ModeFigures[];
  published: string;
}

/** A mode with `+rerank` asks again with the base's reranker on (the local stand-in, over the best RERANK_TOP_N). */
export const MODES = ['keyword', 'semantic', 'hybrid', 'hybrid+rerank'] as const;
const RERANK_TOP_N = 50;
const UPLOADS_AT_ONCE = Number(process.env.BENCH_RETRIEVAL_UPLOADS_AT_ONCE ?? 8);
const WORKERS = Number(process.env.BENCH_RETRIEVAL_WORKERS ?? 2);
/** Documents a delivery at most: the indexing worker's deployed batch size unless the env var says otherwise. */
const BATCH_SIZE = Number(process.env.BENCH_RETRIEVAL_BATCH_SIZE ?? batchingOf('knowledge-worker').batchSize);

const QUERIES_AT_ONCE = 4;

export async function measureRetrieval(
  h: Harness,
  opts: { docs: number; queries: number; modes?: readonly string[]; onProgress?: (line: string) => void },
): Promise<RetrievalBench> {
  const sample = sampleOf(loadCorpus(), loadClaims(), opts.docs, opts.queries);
  const progress = opts.onProgress ?? (() => {});
  await seedCatalog();
  const dir = mkdtempSync(join(tmpdir(), 'bench-retrieval-s3-'));
  const s3 = await startS3(dir);
  s3Client.install(undefined);
  const vectorsDir = mkdtempSync(join(tmpdir(), 'bench-retrieval-vectors-'));
  vectorStore.install(fileVectorStore(vectorsDir));
  const { handler } = (await import('../functions/knowledge-worker/index.ts')) as { handler: WorkerHandler };
  const queue = localQueue({
    dataDir: vectorsDir,
    maxAttempts: 3,
    backoffMs: 200,
    // The embeddings' records go to the usage queue, its own worker's.
    loadWorker: async (name) => (name === 'indexing' ? handler : importWorker(name)),
    queues: { indexing: { concurrency: WORKERS, batchSize: BATCH_SIZE } },
  });
  // Put back afterwards: a later phase counting its own requests must not see this queue's deliveries.
  const harnessQueue = await queueSender();
  queueSender.install(queue);
  try {
    const { token } = await seedTenant();
    const kb = await invoke({
      method: 'POST',
      path: '/api/knowledge/bases',
      token: await token(),
      body: { name: 'SciFact', chunkSize: 2000, chunkOverlap: 0 },
    });
    if (kb.status !== 201) throw new Error(`knowledge base: ${kb.status} ${JSON.stringify(kb.json)}`);
    const kbId = kb.json.result.id as string;

    const corpusIdOf = new Map<string, string>();
    const requestsBefore = h.recorder.requests.length;
    const started = performance.now();
    let bearer = await token();
    const upload = async (a: (typeof sample.abstracts)[number], i: number) => {
      // A fresh token now and then: the whole corpus outlasts one on a busy machine.
      if (i % 800 === 0) bearer = await token();
      const res = await invoke({
        method: 'POST',
        path: `/api/knowledge/bases/${kbId}/documents`,
        token: bearer,
        body: { title: a.title, text: a.text },
      });
      if (res.status !== 202) throw new Error(`upload ${a.id}: ${res.status} ${JSON.stringify(res.json)}`);
      corpusIdOf.set(res.json.result.id, a.id);
      if (i % 500 === 0) progress(`uploaded ${i + 1} of ${sample.abstracts.length}`);
    };
    await pool(
      sample.abstracts.map((a, i) => () => upload(a, i)),
      UPLOADS_AT_ONCE,
    );
    progress('all uploaded');
    await queue.drain();
    const ingestSeconds = (performance.now() - started) / 1000;
    const ingestRequests = h.recorder.requests.length - requestsBefore;
    const byCommand: Record<string, number> = {};
    for (const r of h.recorder.requests.slice(requestsBefore)) {
      const command = r.command.replace(/Command$/, '');
      byCommand[command] = (byCommand[command] ?? 0) + 1;
    }
    for (const k of Object.keys(byCommand)) byCommand[k] = round(byCommand[k]! / sample.abstracts.length, 2);
    if (queue.deadLetters().length) throw new Error(`dead letters: ${JSON.stringify(queue.deadLetters()[0])}`);
    const base = await invoke({ method: 'GET', path: `/api/knowledge/bases/${kbId}`, token: await token() });
    const indexed = base.json.result.documentsByStatus.Indexed as number;
    if (indexed !== sample.abstracts.length) throw new Error(`indexed ${indexed} of ${sample.abstracts.length}`);

    const modes: ModeFigures[] = [];
    const asked = (opts.modes ?? MODES).map((label) => {
      const [mode, after] = label.split('+');
      return { label, mode, rerank: after === 'rerank' };
    });
    let reranking = false;
    for (const { label, mode, rerank } of asked) {
      if (rerank !== reranking) {
        const set = await invoke({
          method: 'PUT',
          path: `/api/knowledge/bases/${kbId}`,
          token: await token(),
          body: { rerank: rerank ? { modelId: LOCAL_MODEL_IDS.rerank, topN: RERANK_TOP_N } : null },
        });
        if (set.status !== 200) throw new Error(`rerank setting: ${set.status} ${JSON.stringify(set.json)}`);
        reranking = rerank;
      }
      const times: number[] = [];
      const per = { ndcg: 0, recall: 0 };
      const before = h.recorder.requests.length;
      bearer = await token();
      const ask = async (claim: Claim) => {
        const t0 = performance.now();
        const res = await invoke({
          method: 'POST',
          path: `/api/knowledge/bases/${kbId}/retrieve`,
          token: bearer,
          body: { query: claim.text, mode, topK: 20 },
        });
        times.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`retrieve ${mode}: ${res.status} ${JSON.stringify(res.json)}`);
        const ranked = documentsOf(
          (res.json.result as { documentId: string }[]).map((m) => corpusIdOf.get(m.documentId) ?? m.documentId),
        );
        const relevant = new Set(claim.relevant);
        per.ndcg += ndcgAt(10, ranked, relevant);
        per.recall += recallAt(20, ranked, relevant);
      };
      await pool(
        sample.claims.map((claim) => () => ask(claim)),
        QUERIES_AT_ONCE,
      );
      const n = sample.claims.length;
      modes.push({
        mode: label,
        ndcg10: round(per.ndcg / n, 3),
        recall20: round(per.recall / n, 3),
        p50Ms: round(median(times), 1),
        dynamoRequestsPerQuery: round((h.recorder.requests.length - before) / n, 1),
      });
      progress(`${label}: nDCG@10 ${modes.at(-1)!.ndcg10}`);
    }
    const bench: RetrievalBench = {
      note:
        'SciFact training claims; abstracts uploaded as JSON {title, text} through the route, indexed by the worker ' +
        `(chunkSize 2000, ${UPLOADS_AT_ONCE} uploads and ${WORKERS} worker runs of up to ${BATCH_SIZE} documents at a time); DynamoDB Local, s3rver, the vector stand-in and ` +
        `the local hashing embedder; topK 20, ${QUERIES_AT_ONCE} queries at once`,
      documents: sample.abstracts.length,
      queries: sample.claims.length,
      ingestSeconds: round(ingestSeconds, 1),
      documentsPerSecond: round(sample.abstracts.length / ingestSeconds, 1),
      dynamoRequestsPerDocument: round(ingestRequests / sample.abstracts.length, 1),
      perDocumentByCommand: byCommand,
      modes,
      published:
        'BEIR test split, nDCG@10: BM25 Anserini flat 0.679, multifield 0.665; BGE-base 0.741; BM25+BGE 0.744; monoT5-3B rerank 0.777',
    };
    printRetrieval(bench);
    return bench;
  } finally {
    await queue.drain();
    queueSender.install(harnessQueue);
    vectorStore.install(undefined);
    await s3.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(vectorsDir, { recursive: true, force: true });
  }
}

export function printRetrieval(b: RetrievalBench) {
  print(`\nRetrieval quality, SciFact: ${b.documents} abstracts, ${b.queries} training claims`);
  print(
    `ingest ${b.ingestSeconds} s (${b.documentsPerSecond} documents/s), ${b.dynamoRequestsPerDocument} DynamoDB requests per document`,
  );
  print(
    `per document: ${Object.entries(b.perDocumentByCommand)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  print('mode            nDCG@10  Recall@20  p50 ms  DynamoDB/query');
  for (const m of b.modes)
    print(
      [
        m.mode.padEnd(14),
        String(m.ndcg10).padStart(7),
        String(m.recall20).padStart(9),
        String(m.p50Ms).padStart(6),
        String(m.dynamoRequestsPerQuery).padStart(14),
      ].join('  '),
    );
  print(`(${b.published})`);
  print(`(${b.note})`);
}
