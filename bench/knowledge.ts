import { seedCatalog } from '#areas/llm-gateway/catalog.ts';
import { vectorStore } from '#areas/knowledge/vectors/port.ts';
import { indexDocument } from '#areas/knowledge/indexing.ts';
import { INDEX_DOCUMENT } from '#areas/knowledge/messages.ts';
import { memoryVectorStore } from '#local/knowledge-vectors.ts';
import { startS3 } from '#local/s3.ts';
import { recordingQueue } from '#local/memory-ports.ts';
import { queueSender } from '#shared/platform/ports.ts';
import { s3 as s3Client } from '#shared/platform/s3.ts';
import { keys } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invoke, print, tokenFor, type Harness } from './harness.ts';
import { median, percentile, round } from './stats.ts';

/**
 * AI knowledge at 1,000 and 10,000 chunks in one base: indexing throughput through the worker's
 * own code (parse, chunk, chunk items, embeddings through the gateway's embed with the local model,
 * vectors, keyword index, the Indexed transaction), then retrieve latency through the full route
 * stack (p50, p95 per mode), and what one retrieve costs: DynamoDB requests, vector-store requests,
 * S3 reads. The vector store is the local stand-in (in memory; S3 Vectors' latency is not
 * measured here), S3 the local s3rver. The base's chunkSize is 100 tokens so 10,000 chunks
 * stay a few MB of text.
 */
export interface KnowledgePoint {
  chunks: number;
  documents: number;
  indexSeconds: number;
  chunksPerSecond: number;
  retrieve: {
    mode: string;
    p50Ms: number;
    p95Ms: number;
    dynamoRequests: number;
    vectorRequests: number;
    s3Reads: number;
  }[];
}

export interface KnowledgeBench {
  note: string;
  points: KnowledgePoint[];
}

const CHUNKS_PER_DOCUMENT = 250;
const RETRIEVES = Number(process.env.BENCH_KNOWLEDGE_RETRIEVES ?? 40);
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

async function seedTenant() {
  const tenantId = crypto.randomUUID();
  await ddb().send(
    new PutCommand({
      TableName: config.tableName,
      // 10,000 chunks of 100 tokens are a million embedding tokens: past any plan's month allowance.
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
  const vectors = memoryVectorStore();
  vectorStore.install(vectors);
  const queue = recordingQueue();
  queueSender.install(queue);
  const s3Gets = { count: 0 };
  const { s3: client } = await import('#shared/platform/s3.ts');
  client().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'GetObjectCommand') s3Gets.count++;
      return next(args);
    },
    { step: 'initialize', name: 'benchS3Counter' },
  );

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
      // Documents of about CHUNKS_PER_DOCUMENT chunks are uploaded and indexed one after another
      // until the base holds `size` chunks; only the worker's run is timed.
      let chunks = 0;
      let documents = 0;
      let indexMs = 0;
      for (let d = 0; chunks < size; d++) {
        const wanted = Math.min(CHUNKS_PER_DOCUMENT, size - chunks);
        const paragraphs = Array.from({ length: Math.max(1, Math.round(wanted * 0.8)) }, (_, p) =>
          paragraph(d * CHUNKS_PER_DOCUMENT + p),
        );
        queue.sent.length = 0;
        const res = await invoke({
          method: 'POST',
          path: `/api/knowledge/bases/${kbId}/documents`,
          token: await token(),
          body: { title: `Doc ${d}`, text: paragraphs.join('\n\n') },
        });
        if (res.status !== 202) throw new Error(`upload: ${res.status} ${JSON.stringify(res.json)}`);
        const message = queue.sent.find((m) => m.message.type === INDEX_DOCUMENT.type)!;
        const t0 = performance.now();
        const indexed = await indexDocument(message.message.payload as never);
        // A document that fails (a refused embedding, say) adds nothing: stop instead of looping.
        if (!indexed.chunks) throw new Error(`document ${d} indexed no chunks: ${JSON.stringify(indexed)}`);
        chunks += indexed.chunks;
        indexMs += performance.now() - t0;
        documents++;
      }
      const indexSeconds = indexMs / 1000;

      const retrieve: KnowledgePoint['retrieve'] = [];
      for (const mode of ['keyword', 'semantic', 'hybrid']) {
        const times: number[] = [];
        let dynamo = 0;
        let vector = 0;
        let reads = 0;
        // One warm-up call loads the keyword index into the function's cache, as a warm instance has it.
        await invoke({
          method: 'POST',
          path: `/api/knowledge/bases/${kbId}/retrieve`,
          token: await token(),
          body: { query: 'warm up', mode },
        });
        for (let i = 0; i < RETRIEVES; i++) {
          const query = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} number ${(i * 97) % size}-2`;
          const beforeDdb = h.recorder.requests.length;
          const beforeVectors = vectors.requests;
          const beforeS3 = s3Gets.count;
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
          reads += s3Gets.count - beforeS3;
        }
        retrieve.push({
          mode,
          p50Ms: round(median(times), 1),
          p95Ms: round(percentile(times, 95), 1),
          dynamoRequests: round(dynamo / RETRIEVES, 2),
          vectorRequests: round(vector / RETRIEVES, 2),
          s3Reads: round(reads / RETRIEVES, 2),
        });
      }
      void tenantId;
      points.push({
        chunks,
        documents,
        indexSeconds: round(indexSeconds, 1),
        chunksPerSecond: round(chunks / indexSeconds, 0),
        retrieve,
      });
    }
  } finally {
    vectorStore.install(undefined);
    await s3.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const bench = {
    note: 'local stand-ins: DynamoDB Local, s3rver, the in-memory vector store and the local hashing embedder; chunkSize 100',
    points,
  };
  printKnowledge(bench);
  return bench;
}

export function printKnowledge(k: KnowledgeBench) {
  print('\nAI knowledge (one base; retrieve through the full route stack, warm)');
  print('chunks  docs  index s  chunks/s  mode      p50 ms  p95 ms  DynamoDB/req  vector/req  S3 GET/req');
  for (const p of k.points)
    for (const [i, r] of p.retrieve.entries())
      print(
        [
          i ? ''.padEnd(6) : String(p.chunks).padEnd(6),
          i ? ''.padEnd(4) : String(p.documents).padEnd(4),
          i ? ''.padEnd(7) : String(p.indexSeconds).padEnd(7),
          i ? ''.padEnd(8) : String(p.chunksPerSecond).padEnd(8),
          r.mode.padEnd(8),
          String(r.p50Ms).padStart(6),
          String(r.p95Ms).padStart(6),
          String(r.dynamoRequests).padStart(12),
          String(r.vectorRequests).padStart(10),
          String(r.s3Reads).padStart(10),
        ].join('  '),
      );
  print(`(${k.note})`);
}
