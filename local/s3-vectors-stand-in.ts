import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IndexRef, VectorMetadata } from '#areas/knowledge/vectors/store.ts';
import { memoryVectorStore } from './knowledge-vectors.ts';

interface Body {
  vectorBucketName?: string;
  indexName?: string;
  dimension?: number;
  vectors?: { key: string; data?: { float32?: number[] }; metadata?: Record<string, unknown> }[];
  queryVector?: { float32?: number[] };
  topK?: number;
  filter?: Record<string, unknown>;
  keys?: string[];
  returnMetadata?: boolean;
  returnData?: boolean;
  returnDistance?: boolean;
}

/** The equality filters the adapter writes (`{field: {$eq}}`, or several under `$and`) as the store's filter. */
function equalities(filter: Record<string, unknown> | undefined): Partial<Pick<VectorMetadata, 'tenantId' | 'kbId'>> {
  if (!filter) return {};
  const parts = (filter.$and as Record<string, unknown>[] | undefined) ?? [filter];
  const out: Record<string, string> = {};
  for (const part of parts)
    for (const [field, cond] of Object.entries(part)) {
      const eq = (cond as { $eq?: unknown })?.$eq;
      if (eq === undefined)
        throw Object.assign(new Error(`Unsupported filter on ${field}`), { name: 'ValidationException' });
      out[field] = String(eq);
    }
  return out;
}

const STATUS: Record<string, number> = { ValidationException: 400, NotFoundException: 404, ConflictException: 409 };

const fail = (res: ServerResponse, name: string, message: string) => {
  res.writeHead(STATUS[name] ?? 500, { 'content-type': 'application/json', 'x-amzn-errortype': name });
  res.end(JSON.stringify({ message, __type: name }));
};

/**
 * Amazon S3 Vectors over HTTP (its REST-JSON protocol: POST /<Operation>), over the local vector
 * store (local/knowledge-vectors.ts: S3 Vectors' limits, filters during the search, cosine): the
 * vector buckets it is given, CreateIndex, GetIndex, DeleteIndex, ListIndexes, PutVectors,
 * GetVectors, QueryVectors (cosine distance, 1 - similarity) and DeleteVectors.
 */
export async function startS3VectorsStandIn(
  buckets: readonly string[],
): Promise<{ endpoint: string; close(): Promise<void> }> {
  const stores = new Map(buckets.map((b) => [b, { store: memoryVectorStore(), indexes: new Map<string, number>() }]));
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const op = new URL(req.url ?? '/', 'http://x').pathname.slice(1);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Body;
    const bucket = stores.get(body.vectorBucketName ?? '');
    if (!bucket) return fail(res, 'NotFoundException', `Vector bucket ${body.vectorBucketName} not found`);
    const name = body.indexName ?? '';
    const ref: IndexRef = { tenantId: '', kbId: name.replace(/^kb-/, '') };
    const ok = (answer: unknown = {}) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    };
    const needIndex = () => {
      if (!bucket.indexes.has(name))
        throw Object.assign(new Error(`Index ${name} not found`), { name: 'NotFoundException' });
    };
    try {
      switch (op) {
        case 'CreateIndex':
          if (bucket.indexes.has(name)) return fail(res, 'ConflictException', `Index ${name} exists`);
          await bucket.store.ensureIndex(ref, body.dimension ?? 0);
          bucket.indexes.set(name, body.dimension ?? 0);
          return ok();
        case 'GetIndex':
          needIndex();
          return ok({
            index: {
              vectorBucketName: body.vectorBucketName,
              indexName: name,
              dataType: 'float32',
              dimension: bucket.indexes.get(name),
              distanceMetric: 'cosine',
            },
          });
        case 'ListIndexes':
          return ok({ indexes: [...bucket.indexes.keys()].map((indexName) => ({ indexName })) });
        case 'DeleteIndex':
          needIndex();
          await bucket.store.dropIndex(ref);
          bucket.indexes.delete(name);
          return ok();
        case 'PutVectors':
          needIndex();
          await bucket.store.put(
            ref,
            (body.vectors ?? []).map((v) => ({
              key: v.key,
              vector: v.data?.float32 ?? [],
              metadata: v.metadata as unknown as VectorMetadata,
            })),
          );
          return ok();
        case 'GetVectors': {
          needIndex();
          const found = await bucket.store.get(ref, body.keys ?? []);
          return ok({
            vectors: found.map((v) => ({
              key: v.key,
              ...(body.returnData ? { data: { float32: v.vector } } : {}),
              ...(body.returnMetadata ? { metadata: v.metadata } : {}),
            })),
          });
        }
        case 'QueryVectors': {
          needIndex();
          const hits = await bucket.store.query(ref, {
            vector: body.queryVector?.float32 ?? [],
            topK: body.topK ?? 0,
            filter: equalities(body.filter),
          });
          return ok({
            vectors: hits.map((h) => ({
              key: h.key,
              ...(body.returnDistance ? { distance: 1 - h.score } : {}),
              ...(body.returnMetadata ? { metadata: h.metadata } : {}),
            })),
            distanceMetric: 'cosine',
          });
        }
        case 'DeleteVectors':
          needIndex();
          await bucket.store.delete(ref, body.keys ?? []);
          return ok();
        default:
          return fail(res, 'ValidationException', `${op} is not served by the S3 Vectors stand-in`);
      }
    } catch (err) {
      fail(res, (err as Error).name, (err as Error).message);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
