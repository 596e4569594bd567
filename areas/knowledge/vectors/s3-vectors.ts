import type { S3VectorsClient } from '@aws-sdk/client-s3vectors';
import { config } from '#shared/platform/config.ts';
import { indexName, MAX_TOP_K, MAX_VECTORS_PER_CALL, type VectorMetadata, type VectorStore } from './store.ts';

/** The vector bucket the stack creates (KNOWLEDGE_VECTOR_BUCKET). */
const bucket = () => config.knowledgeVectorBucket;

const batches = <T>(all: T[], size: number) =>
  Array.from({ length: Math.ceil(all.length / size) }, (_, i) => all.slice(i * size, (i + 1) * size));

const asMetadata = (m: unknown): VectorMetadata => {
  const r = (m ?? {}) as Record<string, unknown>;
  return {
    tenantId: String(r.tenantId ?? ''),
    kbId: String(r.kbId ?? ''),
    documentId: String(r.documentId ?? ''),
    position: Number(r.position ?? -1),
  };
};

const missing = (err: unknown) => (err as { name?: string }).name === 'NotFoundException';

/**
 * Amazon S3 Vectors: one index per knowledge base (cosine, float32), so a query reads (and is
 * priced by) only its base's vectors and a base is dropped with one call. Metadata is filterable
 * (tenantId, kbId, documentId, position: well under the 2 KB limit).
 */
export async function createS3VectorStore(given?: S3VectorsClient): Promise<VectorStore> {
  // Loaded by name on first use: the client stays beside the bundle (lib/bundling.ts).
  const sdk = await import('@aws-sdk/client-s3vectors');
  const client = given ?? new sdk.S3VectorsClient({});
  let requests = 0;
  const send = <T = unknown>(command: object): Promise<T> => {
    requests++;
    return (client.send as (c: object) => Promise<T>).call(client, command);
  };
  const at = (index: Parameters<VectorStore['put']>[0]) => ({
    vectorBucketName: bucket(),
    indexName: indexName(index),
  });
  return {
    get requests() {
      return requests;
    },
    async ensureIndex(index, dimension) {
      try {
        await send(
          new sdk.CreateIndexCommand({ ...at(index), dataType: 'float32', dimension, distanceMetric: 'cosine' }),
        );
      } catch (err) {
        if ((err as { name?: string }).name !== 'ConflictException') throw err;
      }
    },
    async put(index, vectors) {
      for (const batch of batches(vectors, MAX_VECTORS_PER_CALL))
        await send(
          new sdk.PutVectorsCommand({
            ...at(index),
            vectors: batch.map((v) => ({ key: v.key, data: { float32: v.vector }, metadata: { ...v.metadata } })),
          }),
        );
    },
    async query(index, q) {
      const filters = Object.entries(q.filter).map(([k, v]) => ({ [k]: { $eq: v } }));
      try {
        const out = await send<{ vectors?: { key?: string; distance?: number; metadata?: unknown }[] }>(
          new sdk.QueryVectorsCommand({
            ...at(index),
            queryVector: { float32: q.vector },
            topK: Math.min(MAX_TOP_K, q.topK),
            ...(filters.length ? { filter: filters.length === 1 ? filters[0] : { $and: filters } } : {}),
            returnMetadata: true,
            returnDistance: true,
          }),
        );
        return (out.vectors ?? []).map((v) => ({
          key: v.key ?? '',
          score: 1 - Number(v.distance ?? 1),
          metadata: asMetadata(v.metadata),
        }));
      } catch (err) {
        if (missing(err)) return [];
        throw err;
      }
    },
    async get(index, keys) {
      const out: Awaited<ReturnType<VectorStore['get']>> = [];
      for (const batch of batches(keys, MAX_TOP_K)) {
        try {
          const page = await send<{ vectors?: { key?: string; data?: { float32?: number[] }; metadata?: unknown }[] }>(
            new sdk.GetVectorsCommand({ ...at(index), keys: batch, returnData: true, returnMetadata: true }),
          );
          for (const v of page.vectors ?? [])
            out.push({ key: v.key ?? '', vector: v.data?.float32 ?? [], metadata: asMetadata(v.metadata) });
        } catch (err) {
          if (!missing(err)) throw err;
        }
      }
      return out;
    },
    async delete(index, keys) {
      for (const batch of batches(keys, MAX_VECTORS_PER_CALL)) {
        try {
          await send(new sdk.DeleteVectorsCommand({ ...at(index), keys: batch }));
        } catch (err) {
          if (!missing(err)) throw err;
        }
      }
    },
    async dropIndex(index) {
      try {
        await send(new sdk.DeleteIndexCommand(at(index)));
      } catch (err) {
        if (!missing(err)) throw err;
      }
    },
  };
}
