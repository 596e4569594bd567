/**
 * The vector store behind knowledge (docs/decisions/knowledge.md, "Vector store"): one index per knowledge
 * base, every vector carrying its tenant, base, document and position as metadata. Amazon S3 Vectors
 * in deployed stages (s3-vectors.ts); locally and in tests a stand-in with the same semantics
 * (local/knowledge-vectors.ts: topK at most 100, metadata filters, cosine similarity), installed at
 * start as the other ports are. Retrieval checks tenant and base again on every hit.
 */
export interface VectorMetadata {
  tenantId: string;
  kbId: string;
  documentId: string;
  position: number;
}

export interface VectorRecord {
  key: string;
  vector: number[];
  metadata: VectorMetadata;
}

/** `score` is the cosine similarity (S3 Vectors answers a cosine distance, 1 - similarity). */
interface VectorHit {
  key: string;
  score: number;
  metadata: VectorMetadata;
}

/** Equality filters on metadata, applied during the search (so a query may return fewer than topK). */
type VectorFilter = Partial<Pick<VectorMetadata, 'tenantId' | 'kbId'>>;

export interface IndexRef {
  tenantId: string;
  kbId: string;
}

/** S3 Vectors' limits, which the stand-in enforces too. */
export const MAX_TOP_K = 100;
export const MAX_VECTORS_PER_CALL = 500;
export const MAX_DIMENSION = 4096;

export interface VectorStore {
  /** Creates the base's index when missing (idempotent). */
  ensureIndex(index: IndexRef, dimension: number): Promise<void>;
  /** At most 500 vectors per call. */
  put(index: IndexRef, vectors: VectorRecord[]): Promise<void>;
  query(index: IndexRef, q: { vector: number[]; topK: number; filter: VectorFilter }): Promise<VectorHit[]>;
  /** Stored vectors by key (absent keys are left out). */
  get(index: IndexRef, keys: string[]): Promise<VectorRecord[]>;
  /** At most 500 keys per call. */
  delete(index: IndexRef, keys: string[]): Promise<void>;
  dropIndex(index: IndexRef): Promise<void>;
  /** Requests made so far (the bench's cost per retrieve). */
  readonly requests?: number;
}

/** Index names allow 3-63 lowercase letters, digits, hyphens and dots: one per base. */
export const indexName = (index: IndexRef) => `kb-${index.kbId}`;
