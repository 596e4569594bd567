import { emit } from '#shared/data/events.ts';
import { BASE_DELETED } from './events.ts';
import { deleteAll } from '#shared/data/batch.ts';
import { keyOf } from '#shared/data/keys.ts';
import { partitionKeys, queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { config } from '#shared/platform/config.ts';
import { dropTerms, indexedText, postingsOf, removePostings, type DocumentTerms } from './keyword/postings.ts';
import { removeFromSegment } from './keyword/segments.ts';
import { analyzerOf, termCounts } from './keyword/terms.ts';
import { deleteObject, deletePrefix } from './objects.ts';
import {
  basePrefix,
  chunkList,
  documentList,
  kbKey,
  originalObjectKey,
  segmentList,
  segmentMemberList,
  type ChunkRecord,
  type DocumentRecord,
} from './records.ts';
import { vectorStore } from './vectors/port.ts';
import { VECTOR_WRITE_BATCH } from './vocabulary.ts';

/**
 * Cleanup after a delete. Retrieval already ignores what is removed here (it reads live documents
 * and bases), so this only reclaims space: chunk items, vectors, keyword postings, objects.
 */
const chunksOf = (tenantId: string, kbId: string, documentId: string) =>
  queryItems<Pick<ChunkRecord, 'chunkId' | 'position' | 'text' | 'title' | 'analyzer'> & { pk: string; sk: string }>({
    TableName: config.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': chunkList(tenantId, kbId, documentId) },
    ProjectionExpression: 'pk, sk, chunkId, #ps, #tx, #ti, #an',
    ExpressionAttributeNames: { '#ps': 'position', '#tx': 'text', '#ti': 'title', '#an': 'analyzer' },
  });

const termsOfChunks = (documentId: string, chunks: Awaited<ReturnType<typeof chunksOf>>) =>
  postingsOf(
    documentId,
    chunks.map((c) => ({ position: Number(c.position), text: c.text, title: c.title })),
    analyzerOf(chunks[0]!.analyzer),
  );

/** A document's keyword entries out of the index: from its segment's postings, or its own (indexed alone). */
export async function removeKeywordEntries(
  ref: { tenantId: string; kbId: string; documentId: string },
  terms: DocumentTerms,
) {
  if (!(await removeFromSegment(ref.tenantId, ref.kbId, ref.documentId, terms)))
    await removePostings(ref.tenantId, ref.kbId, terms);
}

/** What a document's stored chunks give the keyword index (null when none are stored). */
export async function storedTerms(ref: { tenantId: string; kbId: string; documentId: string }) {
  const chunks = await chunksOf(ref.tenantId, ref.kbId, ref.documentId);
  return chunks.length ? { chunks: chunks.length, terms: termsOfChunks(ref.documentId, chunks) } : null;
}

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
  // The postings are rebuilt from the chunk items, so exactly what indexing wrote is removed.
  if (chunks.length) await removeKeywordEntries(ref, termsOfChunks(ref.documentId, chunks));
  const baseLives = !!(await get(kbKey(ref.tenantId, ref.kbId), { consistent: true }));
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
  await emit(BASE_DELETED, { tenantId: ref.tenantId, kbId: ref.kbId, actor: null });
  const docs = await queryItems<DocumentRecord & { pk: string; sk: string }>({
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': documentList(ref.tenantId, ref.kbId) },
  });
  // The base's terms are found through its chunks' text: a term partition has no other list.
  const terms = new Set<string>();
  for (const d of docs) {
    const chunks = await chunksOf(ref.tenantId, ref.kbId, d.id);
    for (const c of chunks)
      for (const t of termCounts(indexedText(c), analyzerOf(c.analyzer)).counts.keys()) terms.add(t);
    await deleteAll(chunks.map(keyOf));
  }
  await dropTerms(ref.tenantId, ref.kbId, terms);
  for (const pk of [segmentList(ref.tenantId, ref.kbId), segmentMemberList(ref.tenantId, ref.kbId)])
    await deleteAll(await partitionKeys(pk));
  await deleteAll(docs.map(keyOf));
  await (await vectorStore()).dropIndex(ref);
  await deletePrefix(basePrefix(ref.tenantId, ref.kbId));
}
