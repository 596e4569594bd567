import { unbindKnowledgeBase } from '#areas/agents/for-knowledge.ts';
import { deleteAll } from '#shared/data/batch.ts';
import { keyOf } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { config } from '#shared/platform/config.ts';
import { forgetKeywordIndex, rewriteKeywordIndex } from './keyword-index.ts';
import { deleteObject, deletePrefix } from './objects.ts';
import {
  basePrefix,
  chunkList,
  documentList,
  kbKey,
  originalObjectKey,
  type ChunkRecord,
  type DocumentRecord,
} from './records.ts';
import { vectorStore } from './vectors/port.ts';
import { VECTOR_WRITE_BATCH } from './vocabulary.ts';

/**
 * Cleanup after a delete. Retrieval already ignores what is removed here (it reads live documents
 * and bases), so this only reclaims space: chunk items, vectors, keyword entries, objects.
 */
const chunksOf = (tenantId: string, kbId: string, documentId: string) =>
  queryItems<Pick<ChunkRecord, 'chunkId'> & { pk: string; sk: string }>({
    TableName: config.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': chunkList(tenantId, kbId, documentId) },
    ProjectionExpression: 'pk, sk, chunkId',
  });

export async function purgeDocumentData(
  ref: { tenantId: string; kbId: string; documentId: string },
  opts: { dropIndexWhenBaseGone?: boolean; keepOriginal?: boolean } = {},
): Promise<number> {
  const chunks = await chunksOf(ref.tenantId, ref.kbId, ref.documentId);
  const ids = chunks.map((c) => c.chunkId);
  const store = await vectorStore();
  const index = { tenantId: ref.tenantId, kbId: ref.kbId };
  for (let i = 0; i < ids.length; i += VECTOR_WRITE_BATCH)
    await store.delete(index, ids.slice(i, i + VECTOR_WRITE_BATCH));
  const baseLives = ids.length
    ? await rewriteKeywordIndex(ref.tenantId, ref.kbId, { remove: ids })
    : !!(await get(kbKey(ref.tenantId, ref.kbId), { consistent: true }));
  if (!baseLives && opts.dropIndexWhenBaseGone) await store.dropIndex(index);
  await deleteAll(chunks.map(keyOf));
  if (!opts.keepOriginal) await deleteObject(originalObjectKey(ref.tenantId, ref.kbId, ref.documentId));
  return ids.length;
}

/** A deleted base: its documents' items and chunks, its vector index, its objects. */
export async function purgeBase(ref: { tenantId: string; kbId: string }): Promise<void> {
  // A base re-created with the same id cannot exist (ids are random), but never purge a live one.
  if (await get(kbKey(ref.tenantId, ref.kbId), { consistent: true })) return;
  // Again after the delete's own pass: a draft that named the base in a race with it.
  await unbindKnowledgeBase(ref.tenantId, ref.kbId, null);
  const docs = await queryItems<DocumentRecord & { pk: string; sk: string }>({
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': documentList(ref.tenantId, ref.kbId) },
  });
  for (const d of docs) {
    const chunks = await chunksOf(ref.tenantId, ref.kbId, d.id);
    await deleteAll(chunks.map(keyOf));
  }
  await deleteAll(docs.map(keyOf));
  await (await vectorStore()).dropIndex(ref);
  await deletePrefix(basePrefix(ref.tenantId, ref.kbId));
  forgetKeywordIndex(ref.kbId);
}
