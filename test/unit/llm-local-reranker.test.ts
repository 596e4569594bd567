import { describe, expect, it } from 'vitest';
import { localRerank, overlapScore } from '#areas/llm-gateway/providers/local-reranker.ts';
import { rerankTokens } from '#areas/llm-gateway/rerank.ts';
import { countTokens } from '#areas/llm-gateway/tokens.ts';

describe('the local reranker', () => {
  const query = 'vitamin D deficiency in elderly patients';
  const docs = [
    'Patients in the elderly group showed deficiency of vitamin D more often.',
    'A survey of football results.',
    'Vitamin D deficiency in elderly patients is common in northern countries.',
    'Elderly patients and vitamin intake.',
  ];

  it('puts the document holding the query in order first, one without its terms last', async () => {
    const { ranked } = localRerank(query, docs, 4);
    expect(ranked.map((r) => r.index)).toEqual([2, 0, 3, 1]);
    expect(ranked[3]!.score).toBe(0);
    for (const [i, r] of ranked.entries()) if (i) expect(r.score).toBeLessThanOrEqual(ranked[i - 1]!.score);
  });

  it('keeps topN, ties broken by the earlier document, and is the same every time', async () => {
    const twice = [...docs, docs[2]!];
    const first = localRerank(query, twice, 2);
    expect(first.ranked.map((r) => r.index)).toEqual([2, 4]);
    expect(localRerank(query, twice, 2)).toEqual(first);
  });

  it('is metered on the query read beside every document (it reports no count, so the gateway counts)', async () => {
    expect(localRerank(query, docs, 1)).not.toHaveProperty('promptTokens');
    const promptTokens = await rerankTokens(query, docs);
    let expected = (await countTokens(query)) * docs.length;
    for (const d of docs) expected += await countTokens(d);
    expect(promptTokens).toBe(expected);
  });

  it('scores a query without terms 0, and a full in-order match near 1', () => {
    expect(overlapScore('?!', 'anything')).toBe(0);
    expect(overlapScore('vitamin d', 'vitamin d')).toBe(1);
  });
});
