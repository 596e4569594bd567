/**
 * BM25+ (Lv and Zhai), the variant MiniSearch used before, so scores keep their shape: for each query
 * term, idf × (δ + tf·(k1+1) / (tf + k1·(1 − b + b·len/avgdl))), with
 * idf = ln(1 + (N − df + 0.5) / (df + 0.5)). N, df and avgdl are the base's (global) statistics,
 * never a segment's or a page's.
 */
export const K1 = 1.2;
export const B = 0.7;
export const DELTA = 0.5;

export interface BaseStats {
  /** Chunks in the keyword index. */
  chunks: number;
  /** Their total length in terms. */
  terms: number;
}

export function idf(stats: BaseStats, df: number): number {
  // df can briefly exceed the base's count (a document being indexed has postings before it counts).
  const n = Math.max(stats.chunks, df, 1);
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

export const avgLength = (stats: BaseStats) => (stats.chunks > 0 && stats.terms > 0 ? stats.terms / stats.chunks : 1);

/** The term-frequency part of one term in one chunk (without idf and δ). */
export const tfWeight = (tf: number, length: number, avgdl: number) =>
  (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / avgdl));

export const termScore = (idfValue: number, tf: number, length: number, avgdl: number) =>
  idfValue * (DELTA + tfWeight(tf, length, avgdl));
