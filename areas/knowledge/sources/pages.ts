import { deleteItem, putItem, updateItem } from '#shared/data/commit.ts';
import { commitChange } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { notFound } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import { enqueue } from '#shared/queue/messages.ts';
import { deleteDocument, queuedDocument, recordDocument } from '../documents.ts';
import { INDEX_PAGE } from '../messages.ts';
import { putObject } from '../objects.ts';
import { documentKey, type DocumentRecord } from '../records.ts';
import { pageItem, pageKey, pageList, type PageRecord, type SourceRecord } from './source-records.ts';

/**
 * A source's pages in the base. A page that changed becomes a new document beside the version
 * retrieval shows; once the new one is Indexed it takes the page's place and the old one is deleted
 * (swap on success), so a query never sees half of a page's new text, and a failed version leaves
 * the old one answering.
 */
export const readPage = (s: Pick<SourceRecord, 'tenantId' | 'kbId' | 'id'>, url: string) =>
  get<PageRecord>(pageKey(s.tenantId, s.kbId, s.id, url), { consistent: true });

export const newPage = (s: Pick<SourceRecord, 'tenantId' | 'kbId' | 'id'>, url: string): PageRecord => ({
  tenantId: s.tenantId,
  kbId: s.kbId,
  sourceId: s.id,
  url,
  documentId: null,
  contentHash: null,
  etag: null,
  lastModified: null,
  lastmod: null,
  pendingDocumentId: null,
  pendingHash: null,
  pendingEtag: null,
  pendingLastModified: null,
  pendingLastmod: null,
  misses: 0,
  lastSeenSyncId: null,
  updatedAt: new Date().toISOString(),
});

export interface NewVersion {
  title: string;
  contentType: string;
  bytes: Uint8Array;
  hash: string;
  etag: string | null;
  lastModified: string | null;
  lastmod: string | null;
}

/** The page's new version stored and queued as a document (the page item in the same transaction). */
export async function recordVersion(source: SourceRecord, page: PageRecord, v: NewVersion, syncId: string) {
  const doc = {
    ...queuedDocument(
      source.tenantId,
      source.kbId,
      { title: v.title, fileName: null, contentType: v.contentType, sizeBytes: v.bytes.length },
      { userId: source.createdBy },
    ),
    sourceId: source.id,
    sourceUrl: page.url,
  };
  await putObject(doc.objectKey, v.bytes, v.contentType);
  const next: PageRecord = {
    ...page,
    pendingDocumentId: doc.id,
    pendingHash: v.hash,
    pendingEtag: v.etag,
    pendingLastModified: v.lastModified,
    pendingLastmod: v.lastmod,
    misses: 0,
    lastSeenSyncId: syncId,
    updatedAt: doc.createdAt,
  };
  await recordDocument(doc, null, [putItem(pageItem(next))], { index: false });
  await enqueue(
    INDEX_PAGE,
    { tenantId: source.tenantId, kbId: source.kbId, documentId: doc.id, sourceId: source.id, url: page.url },
    { id: `index-${doc.id}` },
  );
  return next;
}

/** A page seen this sync with nothing to index (unchanged, or a version still indexing). */
export async function markSeen(page: PageRecord, syncId: string, set: Partial<PageRecord> = {}) {
  const next = { ...page, ...set, misses: 0, lastSeenSyncId: syncId, updatedAt: new Date().toISOString() };
  await commitChange([putItem(pageItem(next))], null);
  return next;
}

const removeDocument = async (p: PageRecord, documentId: string | null) => {
  if (!documentId) return;
  await deleteDocument(p.tenantId, p.kbId, documentId, null).catch((err) =>
    notFound.is(err) ? undefined : Promise.reject(err),
  );
};

/** The page and its documents out of the base. */
export async function removePage(p: PageRecord) {
  await removeDocument(p, p.pendingDocumentId);
  await removeDocument(p, p.documentId);
  await commitChange([deleteItem(pageKey(p.tenantId, p.kbId, p.sourceId, p.url))], null);
}

/**
 * A sync that did not find the page (404, 410, gone from the sitemap, noindex): the first miss is the
 * grace (a site down for a moment keeps its pages); the second in a row removes it. True when removed.
 */
export async function missPage(p: PageRecord, syncId: string): Promise<boolean> {
  if (p.lastSeenSyncId === syncId && p.misses > 0) return false;
  if (p.misses + 1 >= 2 || !p.documentId) {
    await removePage(p);
    return true;
  }
  await commitChange([putItem(pageItem({ ...p, misses: p.misses + 1, lastSeenSyncId: syncId }))], null);
  return false;
}

/**
 * After a page's version was indexed: Indexed takes the page's place (its old document deleted);
 * Failed leaves the old version answering and the next sync tries again. Answers the document's
 * status and reason.
 */
export async function settleVersion(ref: {
  tenantId: string;
  kbId: string;
  sourceId: string;
  url: string;
  documentId: string;
}) {
  const doc = await get<DocumentRecord>(documentKey(ref.tenantId, ref.kbId, ref.documentId), { consistent: true });
  if (doc?.status !== 'Indexed') return { status: doc?.status ?? null, error: doc?.error ?? null };
  const page = await get<PageRecord>(pageKey(ref.tenantId, ref.kbId, ref.sourceId, ref.url), { consistent: true });
  if (!page || page.pendingDocumentId !== ref.documentId) {
    // The source or page went while it was indexed: the version goes with them.
    if (!page || page.documentId !== ref.documentId)
      await removeDocument({ ...ref, ...page } as PageRecord, ref.documentId);
    return { status: doc.status, error: null };
  }
  await promote(page);
  return { status: doc.status, error: null };
}

/** The pending version becomes the page's document; the one it replaces is deleted. */
export async function promote(page: PageRecord) {
  const old = page.documentId;
  const promoted = {
    documentId: page.pendingDocumentId,
    contentHash: page.pendingHash,
    etag: page.pendingEtag,
    lastModified: page.pendingLastModified,
    lastmod: page.pendingLastmod,
    pendingDocumentId: null,
    pendingHash: null,
    pendingEtag: null,
    pendingLastModified: null,
    pendingLastmod: null,
  };
  await commitChange(
    [
      updateItem(
        pageKey(page.tenantId, page.kbId, page.sourceId, page.url),
        { ...promoted, updatedAt: new Date().toISOString() },
        { condition: 'pendingDocumentId = :doc', values: { ':doc': page.pendingDocumentId } },
      ),
    ],
    null,
  );
  if (old && old !== page.pendingDocumentId) await removeDocument(page, old);
  return { ...page, ...promoted } satisfies PageRecord;
}

/** Every page of a source (one Query on the sort key's prefix, paged by the helper). */
export const pagesOf = (s: Pick<SourceRecord, 'tenantId' | 'kbId' | 'id'>) =>
  queryItems<PageRecord>({
    TableName: config.tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pageList(s.tenantId, s.kbId), ':prefix': `${s.id}#` },
  });

/** A page's version that failed, dropped so the page is read again from scratch. */
export async function dropPending(page: PageRecord) {
  await removeDocument(page, page.pendingDocumentId);
  const next = {
    ...page,
    pendingDocumentId: null,
    pendingHash: null,
    pendingEtag: null,
    pendingLastModified: null,
    pendingLastmod: null,
  };
  await commitChange([putItem(pageItem(next))], null);
  return next;
}

/**
 * A page whose last version is still pending, settled before it is read again: an Indexed one is
 * promoted (its swap was missed), a Failed or lost one dropped; one still indexing makes the page busy.
 */
export async function settlePending(page: PageRecord): Promise<{ page: PageRecord; busy: boolean }> {
  if (!page.pendingDocumentId) return { page, busy: false };
  const pending = await get<DocumentRecord>(documentKey(page.tenantId, page.kbId, page.pendingDocumentId), {
    consistent: true,
  });
  if (pending?.status === 'Indexed') return { page: await promote(page), busy: false };
  if (pending?.status === 'Queued' || pending?.status === 'Processing') return { page, busy: true };
  return { page: await dropPending(page), busy: false };
}
