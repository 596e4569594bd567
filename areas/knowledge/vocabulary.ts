/** The knowledge area's words and limits (spec 03-ai-runtime.md, "AI knowledge"). */
export const DOCUMENT_STATUSES = ['Queued', 'Processing', 'Indexed', 'Failed'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

export const RETRIEVE_MODES = ['keyword', 'semantic', 'hybrid'] as const;
export type RetrieveMode = (typeof RETRIEVE_MODES)[number];

export const CHUNK_SIZE = { min: 100, max: 2000, default: 512 } as const;
export const DEFAULT_CHUNK_OVERLAP = 64;
export const TOP_K = { min: 1, max: 20, default: 5 } as const;
/**
 * A base's reranker reads its best `topN` fused candidates (at most RERANK_TOP_N.max: a cross-encoder
 * is priced and timed per document, and what it reorders below topK is never shown).
 */
export const RERANK_TOP_N = { min: 1, max: 100 } as const;

/** Knowledge upload limit (spec "Limits"). */
export const KNOWLEDGE_MAX_BYTES = 10 * 1024 * 1024;
/** What a Lambda request body carries safely (6 MB payload, base64 inflates by 4/3); more goes through a presigned upload. */
export const DIRECT_MAX_BYTES = 4_400_000;
/** The 413 of a direct upload over it: the spec's 10 MB holds, through the presigned upload. */
export const DIRECT_TOO_LARGE =
  'A file sent in the request may have at most 4,400,000 bytes (about 4.4 MB, what an API request carries once encoded). ' +
  'Files up to 10 MB go through POST /api/knowledge/bases/{kbId}/documents/presigned-upload, then its complete';
/** A JSON text document: its text at most this many characters (about 1 MB of UTF-8). */
export const MAX_TEXT_CHARS = 1_000_000;

/**
 * How long a document may stay in a stage before it ends Failed: Queued covers the queue's own
 * retries (five receives with a 6-minute visibility timeout), Processing one worker run with margin.
 */
export const STAGE_DEADLINE_MS: Record<'Queued' | 'Processing', number> = {
  Queued: 45 * 60_000,
  Processing: 15 * 60_000,
};

/**
 * The most chunks a base holds before uploads are refused (409 KNOWLEDGE_BASE_FULL): past what was
 * measured, a common word's postings are read ever more partially and one base's vector index
 * grows past what a small tenant pays for. A stage may set its own with KNOWLEDGE_MAX_CHUNKS.
 */
export const maxChunksPerBase = () => Number(process.env.KNOWLEDGE_MAX_CHUNKS) || 1_000_000;

/** Texts per embedding call and vectors per vector-store write (S3 Vectors takes at most 500). */
export const EMBED_BATCH = 64;
export const VECTOR_WRITE_BATCH = 500;
/** Candidates fetched from each ranking before fusion (S3 Vectors' topK is at most 100; filters may return fewer). */
export const CANDIDATES = 100;

/**
 * Hybrid fusion weights (docs/decisions/knowledge.md, "Retrieve and fusion"): score = 0.8·keyword +
 * 0.2·vector, the weights at which hybrid beat keyword alone on SciFact's training claims with the
 * local embedder (at 0.5 each it lost to keyword: docs/records/2026-12-02-retrieval-quality.md).
 */
export const KEYWORD_WEIGHT = 0.8;
export const VECTOR_WEIGHT = 0.2;

export const FILE_TYPES = {
  'text/plain': ['txt'],
  'text/markdown': ['md', 'markdown'],
  'text/html': ['html', 'htm'],
  'application/pdf': ['pdf'],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['docx'],
} as const;
export type KnowledgeFileType = keyof typeof FILE_TYPES;
