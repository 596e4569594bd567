import * as z from 'zod/mini';
import type { Match } from '#areas/knowledge/for-agents.ts';
import { once } from '#shared/routes/types.ts';

export interface Citation {
  chunkId: string;
  documentId: string;
  documentTitle: string;
  /** The page a knowledge source read it from; absent for an uploaded document. */
  sourceUrl?: string;
  score: number;
}

/** A citation as the agents' and the conversations' routes answer it. */
export const citationSchema = once(() =>
  z.object({
    chunkId: z.string(),
    documentId: z.string(),
    documentTitle: z.string(),
    sourceUrl: z.optional(z.string()),
    score: z.number(),
  }),
);

/** Two chunks of one document this far apart are two passages; closer, they are one passage cut in two. */
const SAME_PASSAGE = 1;

/**
 * What an answer cites (docs/decisions/agents.md, "Citations"): only matches at or above the agent's
 * threshold (its noAnswerThreshold) and never one scoring 0; per document its best chunk, and a
 * second only when it is another passage (not next to the first), best first; the document's title.
 */
export function citationsOf(matches: readonly Match[], threshold: number): Citation[] {
  const kept = new Map<string, Match[]>();
  const ranked = matches.filter((m) => m.score > 0 && m.score >= threshold).sort((a, b) => b.score - a.score);
  for (const m of ranked) {
    const cited = kept.get(m.documentId) ?? [];
    if (cited.length >= 2) continue;
    if (cited.some((c) => Math.abs(c.position - m.position) <= SAME_PASSAGE)) continue;
    kept.set(m.documentId, [...cited, m]);
  }
  return ranked
    .filter((m) => kept.get(m.documentId)?.includes(m))
    .map((m) => ({
      chunkId: m.chunkId,
      documentId: m.documentId,
      documentTitle: m.documentTitle,
      ...(m.sourceUrl ? { sourceUrl: m.sourceUrl } : {}),
      score: m.score,
    }));
}
