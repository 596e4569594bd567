import { stemmer } from 'stemmer';

/**
 * How text becomes BM25 terms, the same for chunks and queries (docs/decisions/knowledge.md,
 * "Keyword index"): split at spaces, punctuation and the marks code is written between, lowercased,
 * a short English stop list dropped, each term at most MAX_TERM_CHARS long, then (analyzer 2)
 * reduced by the Porter stemmer, so "studies" finds "study" and "cells" finds "cell".
 *
 * A base keeps the analyzer it was created with (its `keywordAnalyzer`, absent meaning 1) and each
 * chunk the one it was indexed with: a query must be cut the way the postings it reads were, and a
 * purge must rebuild exactly the terms that were written.
 */
export type Analyzer = 1 | 2;
export const CURRENT_ANALYZER: Analyzer = 2;
/** A stored version (absent on what was indexed before versions were kept) as an analyzer. */
export const analyzerOf = (stored: number | null | undefined): Analyzer => (Number(stored) === 2 ? 2 : 1);

// Words that carry no meaning and only dilute BM25.
const STOP = new Set(
  'a an and are as at be but by for from has have i if in into is it its of on or that the their then there these they this to was were will with what which who how do does can you your we our'.split(
    ' ',
  ),
);

// Spaces, punctuation and the marks code is written between (`maxAttempts`, a|b, x<=y), so a word
// is found whether or not it was quoted as code. Other symbols stay inside words (C++, $100).
const SEPARATORS = /[\n\r\p{Z}\p{P}`^|<>=~]+/u;

/** Longer runs (a hash, a base64 blob) are cut: a term is part of a key, and nobody searches 64 characters. */
export const MAX_TERM_CHARS = 64;

export function terms(text: string, analyzer: Analyzer): string[] {
  const out: string[] = [];
  for (const raw of text.split(SEPARATORS)) {
    if (!raw) continue;
    const t = raw.toLowerCase().slice(0, MAX_TERM_CHARS);
    if (!STOP.has(t)) out.push(analyzer === 2 ? stemmer(t) : t);
  }
  return out;
}

/** A chunk's term frequencies and its length in terms (BM25's document length). */
export function termCounts(text: string, analyzer: Analyzer): { counts: Map<string, number>; length: number } {
  const all = terms(text, analyzer);
  const counts = new Map<string, number>();
  for (const t of all) counts.set(t, (counts.get(t) ?? 0) + 1);
  return { counts, length: all.length };
}

/** At most this many distinct terms of a query are looked up (a pasted page must not fan out into thousands of reads). */
export const MAX_QUERY_TERMS = 32;

/** A query's distinct terms, in order of appearance, at most MAX_QUERY_TERMS. */
export const queryTerms = (query: string, analyzer: Analyzer) =>
  [...new Set(terms(query, analyzer))].slice(0, MAX_QUERY_TERMS);
