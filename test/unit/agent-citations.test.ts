import { describe, expect, it } from 'vitest';
import { citationsOf } from '#areas/agents/citations.ts';
import type { Match } from '#areas/knowledge/for-agents.ts';

const match = (documentId: string, position: number, score: number): Match => ({
  chunkId: `${documentId}-${position}`,
  documentId,
  documentTitle: `Title of ${documentId}`,
  position,
  text: '…',
  score,
  keywordScore: null,
  vectorScore: score,
  rerankScore: null,
  flagged: false,
});

describe('what an answer cites', () => {
  it('only matches at or above the agent’s threshold, never a score of 0', () => {
    const cited = citationsOf([match('a', 0, 0.9), match('b', 0, 0.3), match('c', 0, 0)], 0.5);
    expect(cited.map((c) => c.documentId)).toEqual(['a']);
    expect(citationsOf([match('c', 0, 0)], 0)).toEqual([]);
  });

  it('one chunk per document, a second only for another passage, best first, with the title', () => {
    const cited = citationsOf(
      [match('a', 3, 0.7), match('a', 4, 0.8), match('b', 0, 0.75), match('a', 10, 0.6), match('a', 20, 0.9)],
      0.5,
    );
    expect(cited.map((c) => c.chunkId)).toEqual(['a-20', 'a-4', 'b-0']);
    expect(cited[0]).toEqual({ chunkId: 'a-20', documentId: 'a', documentTitle: 'Title of a', score: 0.9 });
  });
});
