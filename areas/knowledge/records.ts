import { createHash } from 'node:crypto';
import { keys, PLATFORM, type Key } from '#shared/data/keys.ts';
import type { DocumentStatus } from './vocabulary.ts';

/**
 * The knowledge area's records (docs/architecture.md, "Knowledge"):
 * - a base is a tenant item `{t}#KB` / kbId (the byId index finds it), listed newest first on gsi1;
 * - its documents live in `{t}#KB#{kbId}#DOC` / documentId, listed newest first on gsi1; a document
 *   waiting or running also sits on gsi2 `PLATFORM#KB_PENDING` by its stage deadline, so the
 *   scheduler finds stuck ones with one Query and no Scan;
 * - a document's chunks live in `{t}#KB#{kbId}#CHUNK#{documentId}` / position (zero-padded), so a
 *   chunk page is one Query on a position range and a retrieve reads only the chunks it returns.
 */
const POSITION_DIGITS = 6;
export const padPosition = (n: number) => String(n).padStart(POSITION_DIGITS, '0');

export const kbKey = (tenantId: string, kbId: string): Key => keys.tenantItem(tenantId, 'KB', kbId);
export const kbList = (tenantId: string) => keys.tenantCollection(tenantId, 'KB');
export const documentList = (tenantId: string, kbId: string) => keys.childCollection(tenantId, 'KB', kbId, 'DOC');
export const documentKey = (tenantId: string, kbId: string, documentId: string): Key =>
  keys.childItem(tenantId, 'KB', kbId, 'DOC', documentId);
export const chunkList = (tenantId: string, kbId: string, documentId: string) =>
  keys.childCollection(tenantId, 'KB', kbId, `CHUNK#${documentId}`);
export const chunkKey = (tenantId: string, kbId: string, documentId: string, position: number): Key =>
  keys.childItem(tenantId, 'KB', kbId, `CHUNK#${documentId}`, padPosition(position));
/**
 * A term's partition in a base's keyword index: its document frequency at `#DF`, then its postings
 * at `P#{impact}#{documentId}#{part}`, best impact first (keyword/postings.ts).
 */
export const termList = (tenantId: string, kbId: string, term: string) =>
  keys.childCollection(tenantId, 'KB', kbId, `TERM#${term}`);
export const DF_SK = '#DF';
export const POSTING_PREFIX = 'P#';
export const termStatKey = (tenantId: string, kbId: string, term: string): Key =>
  keys.childItem(tenantId, 'KB', kbId, `TERM#${term}`, DF_SK);
export const postingKey = (
  tenantId: string,
  kbId: string,
  term: string,
  p: { impact: number; documentId: string; part: number },
): Key =>
  keys.childItem(
    tenantId,
    'KB',
    kbId,
    `TERM#${term}`,
    `${POSTING_PREFIX}${String(IMPACT_SCALE - p.impact).padStart(5, '0')}#${p.documentId}#${p.part}`,
  );
/** Impacts are stored as integers 0..IMPACT_SCALE; the sort key holds the complement, so a Query reads the best first. */
export const IMPACT_SCALE = 10_000;
/**
 * A keyword segment (keyword/segments.ts): the documents indexed together whose postings it shares,
 * and the impact each of its terms' postings is keyed by; a member's entry names its segment, so
 * a purge finds the postings to take it out of and a redelivery rebuilds the same ones.
 */
export const segmentList = (tenantId: string, kbId: string) => keys.childCollection(tenantId, 'KB', kbId, 'SEGMENT');
export const segmentKey = (tenantId: string, kbId: string, segmentId: string): Key =>
  keys.childItem(tenantId, 'KB', kbId, 'SEGMENT', segmentId);
export const segmentMemberList = (tenantId: string, kbId: string) =>
  keys.childCollection(tenantId, 'KB', kbId, 'SEGMENT_MEMBER');
export const segmentMemberKey = (tenantId: string, kbId: string, documentId: string): Key =>
  keys.childItem(tenantId, 'KB', kbId, 'SEGMENT_MEMBER', documentId);
/** A presigned upload waiting for its file (expires by TTL). */
export const pendingUploadKey = (tenantId: string, kbId: string, uploadId: string): Key =>
  keys.childItem(tenantId, 'KB', kbId, 'UPLOAD', uploadId);
/** Where the tenant's base count sits: the tenant item, beside its maxKnowledgeBases. */

const PENDING = `${PLATFORM}#KB_PENDING`;
export const pendingEntry = (deadline: string, d: { tenantId: string; kbId: string; id: string }) => ({
  gsi2pk: PENDING,
  gsi2sk: `${deadline}#${d.tenantId}#${d.kbId}#${d.id}`,
});
/** The gsi2 partition of documents waiting or running, sorted by deadline. */
export const pendingIndex = { pk: PENDING };

export interface BaseRerank {
  /** A catalog model of kind rerank. */
  modelId: string;
  topN: number;
}

export interface BaseRecord {
  id: string;
  tenantId: string;
  name: string;
  description: string | null;
  chunkSize: number;
  chunkOverlap: number;
  embeddingModelId: string | null;
  documentCount: number;
  chunkCount: number;
  /**
   * The keyword index's generation: every rewrite stores a new object and bumps it under a
   * condition (keyword-index.ts), and a function's cached index is used only while it matches.
   */
  keywordGeneration: number;
  /** The object the generation committed (absent on bases last rewritten before objects were named per write). */
  keywordObject?: string | null;
  /** The generation before's object, kept for a reader that read the base a moment before the rewrite. */
  keywordPrevious?: string | null;
  /** Flagged chunks stay out of retrieval (they are still indexed and listed). */
  excludeFlagged?: boolean;
  /** Documents per status, moved in the transaction of every status change (status.ts, countMove). */
  queuedCount?: number;
  processingCount?: number;
  indexedCount?: number;
  failedCount?: number;
  /** The total length in terms of the chunks counted in chunkCount: BM25's average length is keywordTerms / chunkCount. */
  keywordTerms?: number;
  /** How its text becomes keyword terms (keyword/terms.ts), fixed at creation; absent on bases created before stemming (1). */
  keywordAnalyzer?: number;
  /** Its retrievals' best candidates reordered by this gateway rerank model (retrieve.ts); absent or null: fused order. */
  rerank?: BaseRerank | null;
  searchText: string;
  createdAt: string;
  updatedAt: string;
}

export interface DocumentRecord {
  id: string;
  tenantId: string;
  kbId: string;
  title: string;
  fileName: string | null;
  contentType: string;
  sizeBytes: number;
  /** Who uploaded it: the embeddings of its chunks are counted as that user's gateway calls. */
  uploadedBy: string;
  status: DocumentStatus;
  progressPercent: number;
  chunkCount: number;
  tokenCount: number;
  /** How many of its chunks are flagged as reading like instructions to an AI. */
  flaggedChunks?: number;
  /** Its chunks' length in terms, taken off the base's keywordTerms when it is deleted. */
  keywordTerms?: number;
  error: string | null;
  /** Where the original is kept (the media bucket, `knowledge/` prefix). */
  objectKey: string;
  /** When the current stage ends Failed (Queued and Processing only). */
  stageDeadline: string | null;
  createdAt: string;
  indexedAt: string | null;
  updatedAt: string;
  /** A page a source brought in (sources/): the source and the page's URL, shown on its citations. */
  sourceId?: string | null;
  sourceUrl?: string | null;
}

export interface PendingUpload {
  id: string;
  tenantId: string;
  kbId: string;
  fileName: string;
  contentType: string;
  size: number;
  title: string;
  uploadedBy: string;
  objectKey: string;
  expiresAt: string;
  ttl: number;
}

export const pendingUploadItem = (u: PendingUpload) => ({ ...pendingUploadKey(u.tenantId, u.kbId, u.id), ...u });

export interface ChunkRecord {
  /** Named `chunkId`, not `id`, so the thousands of chunks stay out of the byId index. */
  chunkId: string;
  tenantId: string;
  kbId: string;
  documentId: string;
  position: number;
  text: string;
  tokenCount: number;
  /** Reads like instructions to an AI (instruction-flags.ts); absent on chunks indexed before the check. */
  flagged?: boolean;
  flagReason?: string | null;
  /** The document's title, indexed with the chunk's words; absent on chunks indexed before titles were. */
  title?: string;
  /** The analyzer its postings were written with (keyword/terms.ts), so a purge rebuilds the same terms; absent means 1. */
  analyzer?: number;
}

export const baseItem = (b: BaseRecord) => ({
  ...kbKey(b.tenantId, b.id),
  ...keys.newestFirst(kbList(b.tenantId), b.createdAt, b.id),
  ...b,
});

export const documentItem = (d: DocumentRecord) => ({
  ...documentKey(d.tenantId, d.kbId, d.id),
  ...keys.newestFirst(documentList(d.tenantId, d.kbId), d.createdAt, d.id),
  ...(d.stageDeadline ? pendingEntry(d.stageDeadline, d) : {}),
  ...d,
});

export const chunkItem = (c: ChunkRecord) => ({ ...chunkKey(c.tenantId, c.kbId, c.documentId, c.position), ...c });

export const toBase = (b: BaseRecord) => ({
  id: b.id,
  name: b.name,
  description: b.description ?? null,
  chunkSize: Number(b.chunkSize),
  chunkOverlap: Number(b.chunkOverlap),
  embeddingModelId: b.embeddingModelId ?? null,
  documentCount: Math.max(0, Number(b.documentCount ?? 0)),
  chunkCount: Math.max(0, Number(b.chunkCount ?? 0)),
  excludeFlagged: b.excludeFlagged ?? false,
  rerank: b.rerank ? { modelId: b.rerank.modelId, topN: Number(b.rerank.topN) } : null,
  documentsByStatus: {
    Queued: Math.max(0, Number(b.queuedCount ?? 0)),
    Processing: Math.max(0, Number(b.processingCount ?? 0)),
    Indexed: Math.max(0, Number(b.indexedCount ?? 0)),
    Failed: Math.max(0, Number(b.failedCount ?? 0)),
  },
  createdAt: b.createdAt,
  updatedAt: b.updatedAt,
});

export const toDocument = (d: DocumentRecord) => ({
  id: d.id,
  title: d.title,
  fileName: d.fileName ?? null,
  contentType: d.contentType,
  sizeBytes: Number(d.sizeBytes),
  status: d.status,
  progressPercent: Number(d.progressPercent ?? 0),
  chunkCount: Number(d.chunkCount ?? 0),
  tokenCount: Number(d.tokenCount ?? 0),
  flaggedChunks: Number(d.flaggedChunks ?? 0),
  error: d.error ?? null,
  createdAt: d.createdAt,
  indexedAt: d.indexedAt ?? null,
  sourceId: d.sourceId ?? null,
  sourceUrl: d.sourceUrl ?? null,
});

export const toChunk = (c: ChunkRecord) => ({
  id: c.chunkId,
  documentId: c.documentId,
  position: Number(c.position),
  text: c.text,
  tokenCount: Number(c.tokenCount),
  flagged: c.flagged ?? false,
  flagReason: c.flagReason ?? null,
});

/** Where an upload's original is kept: tenant-prefixed, so a key built for one tenant never names another's. */
export const originalObjectKey = (tenantId: string, kbId: string, documentId: string) =>
  `knowledge/${tenantId}/${kbId}/documents/${documentId}`;
/** A presigned upload lands here, where nothing reads it until `complete` checks it. */
export const uploadObjectKey = (tenantId: string, kbId: string, uploadId: string) =>
  `knowledge/${tenantId}/${kbId}/uploads/${uploadId}`;
export const basePrefix = (tenantId: string, kbId: string) => `knowledge/${tenantId}/${kbId}/`;
/**
 * A chunk's id, derived from its document and position (a UUID-shaped hash), so a re-delivered
 * indexing message overwrites the same chunk items and vectors instead of leaving strays.
 */
export function chunkIdOf(documentId: string, position: number): string {
  const h = createHash('sha256').update(`${documentId}#${position}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((Number.parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The knowledge sources due to sync (gsi2, by the time each is due): their key shapes, kept with the area's others. */
const SOURCES_DUE = `${PLATFORM}#KB_SOURCES`;
export const sourcesDueIndex = { pk: SOURCES_DUE };
export const sourcesDueEntry = (at: string, s: { tenantId: string; kbId: string; id: string }) => ({
  gsi2pk: SOURCES_DUE,
  gsi2sk: `${at}#${s.tenantId}#${s.kbId}#${s.id}`,
});
