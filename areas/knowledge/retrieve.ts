import { embed, type Caller, cosine, rerank } from '#areas/llm-gateway/for-knowledge.ts';
import { ApiError, notFound } from '#shared/http/errors.ts';
import { logger } from '#shared/runtime/logger.ts';
import { fuse, type Candidate, type Scored } from './fusion.ts';
import { indexedText } from './keyword/postings.ts';
import { NO_KEYWORD_HITS, searchKeyword } from './keyword/search.ts';
import { keyId } from '#shared/data/keys.ts';
import { getMany } from '#shared/data/read.ts';
import {
  chunkIdOf,
  chunkKey,
  documentKey,
  kbKey,
  type BaseRecord,
  type ChunkRecord,
  type DocumentRecord,
} from './records.ts';
import { vectorStore } from './vectors/port.ts';
import { CANDIDATES, TOP_K, type RetrieveMode } from './vocabulary.ts';

export interface Match {
  chunkId: string;
  documentId: string;
  documentTitle: string;
  /** The page a knowledge source brought it from (null for an upload): shown on the answer's citations. */
  sourceUrl?: string | null;
  position: number;
  text: string;
  score: number;
  keywordScore: number | null;
  vectorScore: number | null;
  /** The base's reranker's score (null: no reranker asked, below its topN, or it did not answer). */
  rerankScore: number | null;
  /** The chunk reads like instructions to an AI (instruction-flags.ts): the runtime treats the turn as tainted. */
  flagged: boolean;
}

export interface RetrieveCall {
  tenantId: string;
  kbIds: string[];
  query: string;
  topK?: number | null;
  mode?: RetrieveMode | null;
  scoreThreshold?: number | null;
  caller: Caller;
  requestId: string;
  /**
   * When none of the bases exists: 404 (the retrieve route, naming one base), or no matches (an
   * agent's turn: a published version may pin a base deleted since, and a turn never fails for it).
   */
  whenNoBase?: 'notFound' | 'empty';
}

/**
 * Candidates of one base from its keyword index and its vector index, with both raw scores where
 * known. The keyword search and the vector query (which waits for the query's embedding) run at
 * once: a hybrid retrieve costs the slower of the two, not their sum.
 */
async function candidatesOf(
  base: BaseRecord,
  call: RetrieveCall,
  mode: RetrieveMode,
  embedded: Promise<number[] | null>,
) {
  const index = { tenantId: base.tenantId, kbId: base.id };
  const [keyword, vectorHits, queryVector] = await Promise.all([
    mode === 'semantic' ? NO_KEYWORD_HITS : searchKeyword(base, call.query, CANDIDATES),
    embedded.then(async (vector) =>
      vector
        ? (await vectorStore()).query(index, {
            vector,
            topK: CANDIDATES,
            filter: { tenantId: base.tenantId, kbId: base.id },
          })
        : [],
    ),
    embedded,
  ]);
  const byId = new Map<string, Candidate>();
  for (const h of keyword.best) {
    const id = chunkIdOf(h.documentId, h.position);
    byId.set(id, {
      chunkId: id,
      kbId: base.id,
      documentId: h.documentId,
      position: h.position,
      bm25: h.score,
      cosine: null,
    });
  }
  const maxBm25 = keyword.best[0]?.score ?? 0;
  if (queryVector) {
    for (const h of vectorHits) {
      // Checked again: the filter asked for these, the answer must say so.
      if (h.metadata.tenantId !== base.tenantId || h.metadata.kbId !== base.id) {
        logger.warn('vector hit outside its tenant or base dropped', { kbId: base.id, key: h.key });
        continue;
      }
      const known = byId.get(h.key);
      if (known) known.cosine = h.score;
      else
        byId.set(h.key, {
          chunkId: h.key,
          kbId: base.id,
          documentId: h.metadata.documentId,
          position: h.metadata.position,
          // Every keyword match read keeps its BM25, for vector candidates found below the keyword cut.
          bm25: keyword.scoreOf(h.metadata.documentId, h.metadata.position),
          cosine: h.score,
        });
    }
    // Keyword candidates the vector top-K left out: their vectors, so both scores are exact.
    const unmeasured = [...byId.values()].filter((c) => c.cosine === null);
    if (mode === 'hybrid' && unmeasured.length) {
      const stored = await (await vectorStore()).get(
        index,
        unmeasured.map((c) => c.chunkId),
      );
      const vectors = new Map(stored.map((v) => [v.key, v]));
      for (const c of unmeasured) {
        const v = vectors.get(c.chunkId);
        c.cosine =
          v && v.metadata.tenantId === base.tenantId && v.metadata.kbId === base.id ? cosine(queryVector, v.vector) : 0;
      }
    }
  }
  return { candidates: [...byId.values()], maxBm25 };
}

/**
 * The chunks of the tenant's bases that best answer a query (docs/architecture.md, "Knowledge").
 * Bases that do not exist (deleted meanwhile) are skipped; none existing is 404. Reads: one
 * BatchGetItem for the bases, per base one BatchGetItem of the query terms' statistics and one
 * Query per term for its postings (keyword and hybrid), one vector query (and one vector read in
 * hybrid mode), then one BatchGetItem per page of hits for their chunks and documents (never every
 * chunk). A hit counts only when its chunk's tenant and base are
 * the ones asked for and its document still exists Indexed, so a deleted document or base leaves
 * retrieval at once, before its index entries are cleaned up.
 */
export async function retrieve(call: RetrieveCall): Promise<Match[]> {
  const mode = call.mode ?? 'hybrid';
  const topK = Math.min(TOP_K.max, Math.max(TOP_K.min, call.topK ?? TOP_K.default));
  const kbIds = [...new Set(call.kbIds)];
  const found = await getMany<BaseRecord>(kbIds.map((id) => kbKey(call.tenantId, id)));
  const bases = kbIds.flatMap((id) => {
    const b = found.get(keyId(kbKey(call.tenantId, id)));
    return b && b.tenantId === call.tenantId ? [b] : [];
  });
  if (!bases.length) {
    if (call.whenNoBase === 'empty') return [];
    throw notFound('Knowledge base');
  }

  // The query's embedding (one per embedding model of the bases) is not awaited here: each base's
  // keyword search runs meanwhile.
  const models = [...new Set(bases.map((b) => b.embeddingModelId ?? null))];
  const embeddings = new Map(
    models.map((model) => [
      model,
      mode === 'keyword'
        ? Promise.resolve(null)
        : embed({
            tenantId: call.tenantId,
            caller: call.caller,
            requestId: call.requestId,
            model,
            input: [call.query],
          }).then((out) => out.vectors[0]!),
    ]),
  );
  const perBase = await Promise.all(
    bases.map((base) => candidatesOf(base, call, mode, embeddings.get(base.embeddingModelId ?? null)!)),
  );
  const maxBm25 = new Map(bases.map((base, i) => [base.id, perBase[i]!.maxBm25]));
  const all: Candidate[] = perBase.flatMap((p) => p.candidates);
  const ranked = fuse(all, mode, maxBm25).filter(
    (c) => (mode !== 'keyword' || c.bm25 > 0) && (call.scoreThreshold == null || c.score >= call.scoreThreshold),
  );
  const excluded = new Set(bases.filter((b) => b.excludeFlagged).map((b) => b.id));
  const reranker = bases.find((b) => b.rerank)?.rerank;
  if (!reranker) return liveMatches(call.tenantId, ranked, topK, excluded);
  const topN = Math.max(...bases.map((b) => Number(b.rerank?.topN ?? 0)));
  const live = await liveMatches(call.tenantId, ranked, Math.max(topK, topN), excluded);
  return (await reranked(call, reranker.modelId, live.slice(0, topN), live.slice(topN))).slice(0, topK);
}

/**
 * The best fused candidates reordered by the reranker through the gateway (metered as the caller's
 * rerank call), the rest after them in fused order; `score` stays the fused one, so thresholds and
 * citations mean what they did. A refusal (the allowance used up) is the caller's to see; a reranker
 * that does not answer leaves the fused order, each match's rerankScore null saying so.
 */
async function reranked(call: RetrieveCall, modelId: string, head: Match[], tail: Match[]): Promise<Match[]> {
  if (!head.length) return tail;
  try {
    const out = await rerank({
      tenantId: call.tenantId,
      caller: call.caller,
      requestId: `${call.requestId}-rerank`,
      model: modelId,
      query: call.query,
      documents: head.map((m) => indexedText({ position: m.position, text: m.text, title: m.documentTitle })),
      topN: head.length,
    });
    const placed = new Set(out.ranked.map((r) => r.index));
    return [
      ...out.ranked.map((r) => ({ ...head[r.index]!, rerankScore: r.score })),
      ...head.filter((_, i) => !placed.has(i)),
      ...tail,
    ];
  } catch (err) {
    if (err instanceof ApiError && err.status < 500) throw err;
    logger.warn('the reranker did not answer; the fused order stands', { modelId, errorName: (err as Error).name });
    return [...head, ...tail];
  }
}

/** The best `topK` of the ranked hits whose chunk and document still stand, read a page at a time. */
async function liveMatches(
  tenantId: string,
  ranked: Scored[],
  topK: number,
  excludeFlaggedOf: Set<string>,
): Promise<Match[]> {
  const out: Match[] = [];
  for (let start = 0; start < ranked.length && out.length < topK; ) {
    const page = ranked.slice(start, start + Math.min(45, Math.max(topK * 2, 10)));
    start += page.length;
    const keys = page.flatMap((c) => [
      chunkKey(tenantId, c.kbId, c.documentId, c.position),
      documentKey(tenantId, c.kbId, c.documentId),
    ]);
    const items = await getMany<ChunkRecord & DocumentRecord>(keys);
    for (const c of page) {
      const chunk = items.get(keyId(chunkKey(tenantId, c.kbId, c.documentId, c.position))) as ChunkRecord | undefined;
      const doc = items.get(keyId(documentKey(tenantId, c.kbId, c.documentId))) as DocumentRecord | undefined;
      if (!chunk || !doc || doc.status !== 'Indexed') continue;
      if (chunk.tenantId !== tenantId || chunk.kbId !== c.kbId || chunk.chunkId !== c.chunkId) continue;
      if (chunk.flagged && excludeFlaggedOf.has(c.kbId)) continue;
      out.push({
        chunkId: chunk.chunkId,
        documentId: doc.id,
        documentTitle: doc.title,
        sourceUrl: doc.sourceUrl ?? null,
        position: Number(chunk.position),
        text: chunk.text,
        score: c.score,
        keywordScore: c.keywordScore,
        vectorScore: c.vectorScore,
        rerankScore: null,
        flagged: chunk.flagged ?? false,
      });
      if (out.length >= topK) break;
    }
  }
  return out;
}
