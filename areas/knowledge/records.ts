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
/** A presigned upload waiting for its file (expires by TTL). */
export const pendingUploadKey = (tenantId: string, kbId: string, uploadId: string): Key =>
  keys.childItem(tenantId, 'KB', kbId, 'UPLOAD', uploadId);
/** Where the tenant's base count sits: the tenant item, beside its maxKnowledgeBases. */
export const tenantKey = (tenantId: string): Key => keys.platformItem('TENANT', tenantId);

const PENDING = `${PLATFORM}#KB_PENDING`;
export const pendingEntry = (deadline: string, d: { tenantId: string; kbId: string; id: string }) => ({
  gsi2pk: PENDING,
  gsi2sk: `${deadline}#${d.tenantId}#${d.kbId}#${d.id}`,
});
/** The gsi2 partition of documents waiting or running, sorted by deadline. */
export const pendingIndex = { pk: PENDING };

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
  error: string | null;
  /** Where the original is kept (the media bucket, `knowledge/` prefix). */
  objectKey: string;
  /** When the current stage ends Failed (Queued and Processing only). */
  stageDeadline: string | null;
  createdAt: string;
  indexedAt: string | null;
  updatedAt: string;
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
 * One object per write attempt: two writers of one generation never share a key, so the one that
 * loses the base's condition removes only its own object.
 */
export const keywordObjectKey = (tenantId: string, kbId: string, generation: number, attempt: string) =>
  `knowledge/${tenantId}/${kbId}/keyword/${generation}-${attempt}.json`;
const legacyKeywordObjectKey = (tenantId: string, kbId: string, generation: number) =>
  `knowledge/${tenantId}/${kbId}/keyword/${generation}.json`;

type KeywordPointer = Pick<BaseRecord, 'tenantId' | 'id' | 'keywordGeneration' | 'keywordObject' | 'keywordPrevious'>;
/** The object holding the base's current keyword index; null while it has none (generation 0). */
export const committedKeywordObject = (b: KeywordPointer): string | null =>
  b.keywordObject ??
  (Number(b.keywordGeneration ?? 0) ? legacyKeywordObjectKey(b.tenantId, b.id, Number(b.keywordGeneration)) : null);
/** The object a rewrite of the base makes obsolete: the one before its current one. */
export const previousKeywordObject = (b: KeywordPointer): string | null => {
  if (b.keywordPrevious !== undefined) return b.keywordPrevious;
  const g = Number(b.keywordGeneration ?? 0);
  return !b.keywordObject && g > 1 ? legacyKeywordObjectKey(b.tenantId, b.id, g - 1) : null;
};

/**
 * A chunk's id, derived from its document and position (a UUID-shaped hash), so a re-delivered
 * indexing message overwrites the same chunk items and vectors instead of leaving strays.
 */
export function chunkIdOf(documentId: string, position: number): string {
  const h = createHash('sha256').update(`${documentId}#${position}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((Number.parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
