import { KEYWORD_WEIGHT, VECTOR_WEIGHT, type RetrieveMode } from './vocabulary.ts';

/**
 * The exact scoring of a retrieve (docs/decisions/knowledge.md, "Retrieve and fusion"), a pure function so the same
 * inputs always give the same scores:
 * - keywordScore = BM25(chunk) / max BM25 among the base's chunks for this query (1 for the best
 *   keyword match of the base, 0 for a chunk matching no query term);
 * - vectorScore = max(0, cosine(query vector, chunk vector));
 * - score: keyword mode keywordScore, semantic mode vectorScore, hybrid
 *   KEYWORD_WEIGHT x keywordScore + VECTOR_WEIGHT x vectorScore (0.8 and 0.2). The component a mode
 *   does not use is null.
 * Each is rounded to 6 decimals; ties go to the smaller chunk id, so the order is stable too.
 */
export interface Candidate {
  chunkId: string;
  kbId: string;
  documentId: string;
  position: number;
  /** Raw BM25, or 0. */
  bm25: number;
  /** Raw cosine, or null when not measured. */
  cosine: number | null;
}

export interface Scored extends Candidate {
  score: number;
  keywordScore: number | null;
  vectorScore: number | null;
}

const round6 = (v: number) => Math.round(v * 1e6) / 1e6;

/** `maxBm25` is per base: BM25 of different indexes are not on one scale. */
export function fuse(candidates: Candidate[], mode: RetrieveMode, maxBm25: Map<string, number>): Scored[] {
  return candidates
    .map((c) => {
      const top = maxBm25.get(c.kbId) ?? 0;
      const keyword = top > 0 ? c.bm25 / top : 0;
      const vector = Math.max(0, c.cosine ?? 0);
      const score =
        mode === 'keyword' ? keyword : mode === 'semantic' ? vector : KEYWORD_WEIGHT * keyword + VECTOR_WEIGHT * vector;
      return {
        ...c,
        score: round6(score),
        keywordScore: mode === 'semantic' ? null : round6(keyword),
        vectorScore: mode === 'keyword' ? null : round6(vector),
      };
    })
    .sort((a, b) => b.score - a.score || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0));
}
