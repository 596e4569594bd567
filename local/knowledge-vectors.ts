import { join } from 'node:path';
import { cosine } from '#areas/llm-gateway/providers/hashing-embedder.ts';
import { readJson, writeJson } from './json-file.ts';
import {
  indexName,
  MAX_DIMENSION,
  MAX_TOP_K,
  MAX_VECTORS_PER_CALL,
  type VectorRecord,
  type VectorStore,
} from '#areas/knowledge/vectors/port.ts';

const validation = (message: string) => Object.assign(new Error(message), { name: 'ValidationException' });

/**
 * The vector store's local stand-in, in memory, with S3 Vectors' semantics: an index per base with a
 * fixed dimension (1-4096), at most 500 vectors per write, topK 1-100, equality filters on metadata
 * applied during the search, cosine similarity (vectors are normalised by the embedder), a query on
 * a missing index answering nothing. It counts its requests like the adapter does.
 */
type Indexes = Map<string, { dimension: number; vectors: Map<string, VectorRecord> }>;
type Snapshot = Record<string, { dimension: number; vectors: VectorRecord[] }>;

export function memoryVectorStore(
  initial: Snapshot = {},
  onChange: (snapshot: () => Snapshot) => void = () => undefined,
): VectorStore & { requests: number; size(kbId: string): number } {
  const indexes: Indexes = new Map(
    Object.entries(initial).map(([name, i]) => [
      name,
      { dimension: i.dimension, vectors: new Map(i.vectors.map((v) => [v.key, v])) },
    ]),
  );
  const snapshot = (): Snapshot =>
    Object.fromEntries(
      [...indexes].map(([name, i]) => [name, { dimension: i.dimension, vectors: [...i.vectors.values()] }]),
    );
  const changed = () => onChange(snapshot);
  const store = {
    requests: 0,
    size: (kbId: string) => indexes.get(`kb-${kbId}`)?.vectors.size ?? 0,
    async ensureIndex(index, dimension) {
      store.requests++;
      if (dimension < 1 || dimension > MAX_DIMENSION) throw validation(`dimension must be 1-${MAX_DIMENSION}`);
      if (!indexes.has(indexName(index))) {
        indexes.set(indexName(index), { dimension, vectors: new Map() });
        changed();
      }
    },
    async put(index, vectors) {
      store.requests++;
      if (vectors.length > MAX_VECTORS_PER_CALL) throw validation(`at most ${MAX_VECTORS_PER_CALL} vectors per call`);
      const found = indexes.get(indexName(index));
      if (!found) throw Object.assign(new Error('No such index'), { name: 'NotFoundException' });
      for (const v of vectors) {
        if (v.vector.length !== found.dimension) throw validation('vector dimension does not match the index');
        found.vectors.set(v.key, { key: v.key, vector: [...v.vector], metadata: { ...v.metadata } });
      }
      changed();
    },
    async query(index, q) {
      store.requests++;
      if (q.topK < 1 || q.topK > MAX_TOP_K) throw validation(`topK must be 1-${MAX_TOP_K}`);
      const found = indexes.get(indexName(index));
      if (!found) return [];
      const matches = [...found.vectors.values()].filter((v) =>
        Object.entries(q.filter).every(([k, want]) => v.metadata[k as keyof typeof v.metadata] === want),
      );
      return matches
        .map((v) => ({ key: v.key, score: cosine(q.vector, v.vector), metadata: { ...v.metadata } }))
        .sort((a, b) => b.score - a.score || a.key.localeCompare(b.key))
        .slice(0, q.topK);
    },
    async get(index, keys) {
      store.requests++;
      const found = indexes.get(indexName(index));
      return keys.flatMap((k) => {
        const v = found?.vectors.get(k);
        return v ? [{ key: v.key, vector: [...v.vector], metadata: { ...v.metadata } }] : [];
      });
    },
    async delete(index, keys) {
      store.requests++;
      if (keys.length > MAX_VECTORS_PER_CALL) throw validation(`at most ${MAX_VECTORS_PER_CALL} keys per call`);
      const found = indexes.get(indexName(index));
      for (const k of keys) found?.vectors.delete(k);
      changed();
    },
    async dropIndex(index) {
      store.requests++;
      indexes.delete(indexName(index));
      changed();
    },
  } satisfies VectorStore & { requests: number; size(kbId: string): number };
  return store;
}

/**
 * The stand-in `npm start` installs: the same store, kept in LOCAL_DATA_DIR/knowledge-vectors.json
 * (written a second after the last change), so vectors persist between runs like the table does.
 */
export function fileVectorStore(dataDir: string) {
  const file = join(dataDir, 'knowledge-vectors.json');
  let timer: NodeJS.Timeout | undefined;
  let latest: (() => Snapshot) | undefined;
  const flush = () => {
    timer = undefined;
    if (latest) writeJson(file, latest());
  };
  const store = memoryVectorStore(readJson<Snapshot>(file, {}), (snapshot) => {
    latest = snapshot;
    timer ??= setTimeout(flush, 1000);
    timer.unref();
  });
  return Object.assign(store, {
    flush: () => {
      if (timer) clearTimeout(timer);
      flush();
    },
  });
}
