import type { RerankAnswer } from './port.ts';

/**
 * The local reranker (`local-rerank`): a deterministic stand-in for a cross-encoder, so the rerank
 * path (admission, metering, fallbacks, the order handed back) runs in the local run and the tests.
 * It scores a document by what a cross-encoder sees and a bag-of-words index does not: the share of
 * the query's distinct terms the document holds, the share of the query's adjacent term pairs it
 * holds in that order, and how early the first of them appears. It is no model of relevance: its
 * effect on retrieval is whatever those features give.
 */
const termsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
const pairsOf = (terms: string[]) => new Set(terms.slice(1).map((t, i) => `${terms[i]} ${t}`));

export function overlapScore(query: string, document: string): number {
  const queryTerms = termsOf(query);
  const wanted = new Set(queryTerms);
  if (!wanted.size) return 0;
  const docTerms = termsOf(document);
  const held = new Set(docTerms);
  const coverage = [...wanted].filter((t) => held.has(t)).length / wanted.size;
  const queryPairs = pairsOf(queryTerms);
  const docPairs = pairsOf(docTerms);
  const inOrder = queryPairs.size ? [...queryPairs].filter((p) => docPairs.has(p)).length / queryPairs.size : 0;
  const first = docTerms.findIndex((t) => wanted.has(t));
  const early = first < 0 ? 0 : 1 / (1 + first / 50);
  return Math.round((0.6 * coverage + 0.3 * inOrder + 0.1 * early) * 1e6) / 1e6;
}

export function localRerank(query: string, documents: string[], topN: number): RerankAnswer {
  const ranked = documents
    .map((doc, index) => ({ index, score: overlapScore(query, doc) }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, topN);
  return { ranked };
}
