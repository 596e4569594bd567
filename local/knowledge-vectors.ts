import {
  indexName,
  MAX_DIMENSION,
  MAX_TOP_K,
  MAX_VECTORS_PER_CALL,
  type VectorStore,
} from '#areas/knowledge/vectors/store.ts';
import { PackedIndex } from './packed-vectors.ts';
import { fileJournal, type VectorJournal } from './vector-journal.ts';

const validation = (message: string) => Object.assign(new Error(message), { name: 'ValidationException' });

/**
 * The vector store's local stand-in with S3 Vectors' semantics: an index per base with a fixed
 * dimension (1-4096), at most 500 vectors per write, topK 1-100, equality filters on metadata
 * applied during the search, cosine similarity over float32 data, a query on a missing index
 * answering nothing. It counts its requests like the adapter does.
 */
export function memoryVectorStore(
  journal?: VectorJournal,
): VectorStore & { requests: number; size(kbId: string): number } {
  const indexes = new Map<string, PackedIndex>();
  const find = (name: string) => {
    let found = indexes.get(name);
    if (!found && journal) {
      found = journal.load(name);
      if (found) indexes.set(name, found);
    }
    return found;
  };
  const store = {
    requests: 0,
    size: (kbId: string) => find(`kb-${kbId}`)?.size ?? 0,
    async ensureIndex(index, dimension) {
      store.requests++;
      if (dimension < 1 || dimension > MAX_DIMENSION) throw validation(`dimension must be 1-${MAX_DIMENSION}`);
      const name = indexName(index);
      if (find(name)) return;
      indexes.set(name, new PackedIndex(dimension));
      journal?.created(name, dimension);
    },
    async put(index, vectors) {
      store.requests++;
      if (vectors.length > MAX_VECTORS_PER_CALL) throw validation(`at most ${MAX_VECTORS_PER_CALL} vectors per call`);
      const name = indexName(index);
      const found = find(name);
      if (!found) throw Object.assign(new Error('No such index'), { name: 'NotFoundException' });
      if (vectors.some((v) => v.vector.length !== found.dimension))
        throw validation('vector dimension does not match the index');
      for (const v of vectors) found.set(v.key, v.vector, { ...v.metadata });
      journal?.put(name, found.dimension, vectors);
    },
    async query(index, q) {
      store.requests++;
      if (q.topK < 1 || q.topK > MAX_TOP_K) throw validation(`topK must be 1-${MAX_TOP_K}`);
      const found = find(indexName(index));
      if (!found) return [];
      const { tenantId, kbId } = q.filter;
      return found.nearest(
        q.vector,
        q.topK,
        (m) => (tenantId === undefined || m.tenantId === tenantId) && (kbId === undefined || m.kbId === kbId),
      );
    },
    async get(index, keys) {
      store.requests++;
      const found = find(indexName(index));
      return keys.flatMap((key) => {
        const v = found?.get(key);
        return v ? [{ key, vector: v.vector, metadata: { ...v.metadata } }] : [];
      });
    },
    async delete(index, keys) {
      store.requests++;
      if (keys.length > MAX_VECTORS_PER_CALL) throw validation(`at most ${MAX_VECTORS_PER_CALL} keys per call`);
      const name = indexName(index);
      const found = find(name);
      if (!found) return;
      for (const k of keys) found.delete(k);
      journal?.deleted(name, keys);
    },
    async dropIndex(index) {
      store.requests++;
      const name = indexName(index);
      indexes.delete(name);
      journal?.dropped(name);
    },
  } satisfies VectorStore & { requests: number; size(kbId: string): number };
  return store;
}

/** The stand-in `npm start` installs: the same store, journalled under LOCAL_DATA_DIR (vector-journal.ts). */
export const fileVectorStore = (dataDir: string) => memoryVectorStore(fileJournal(dataDir));
