import './env.ts';

/**
 * One cold retrieve in a fresh process (spawned by bench/knowledge.ts): nothing loaded, nothing
 * cached, a new DynamoDB connection. Times the import of the retrieval code and its first answer,
 * and prints them with the process's peak memory as one JSON line. The vector stand-in (semantic
 * and hybrid) is loaded from its file before the clock starts: deployed, vectors stay in S3 Vectors.
 */
const [tableName, endpoint, tenantId, kbId, mode, query, vectorsDir] = process.argv.slice(2) as string[];
process.env.TABLE_NAME = tableName;
process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
let standInRssMb = 0;
if (mode !== 'keyword') {
  const { fileVectorStore } = await import('#local/knowledge-vectors.ts');
  const { vectorStore } = await import('#areas/knowledge/vectors/port.ts');
  const vectors = fileVectorStore(vectorsDir!);
  // The index is read from its journal on first use: here, before the clock.
  vectors.size(kbId!);
  vectorStore.install(vectors);
  standInRssMb = process.memoryUsage().rss / 2 ** 20;
}
const started = performance.now();
const { retrieve } = await import('#areas/knowledge/retrieve.ts');
const matches = await retrieve({
  tenantId: tenantId!,
  kbIds: [kbId!],
  query: query!,
  mode: mode as 'keyword',
  topK: 5,
  caller: { kind: 'user', userId: crypto.randomUUID() },
  requestId: crypto.randomUUID(),
});
const ms = performance.now() - started;
process.stdout.write(
  `${JSON.stringify({ ms, matches: matches.length, peakRssMb: process.resourceUsage().maxRSS / 1024, standInRssMb })}\n`,
);
process.exit(0);
