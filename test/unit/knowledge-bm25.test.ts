import { describe, expect, it } from 'vitest';
import { avgLength, idf, termScore } from '#areas/knowledge/keyword/bm25.ts';
import { eachEntry, postingsOf } from '#areas/knowledge/keyword/postings.ts';
import { analyzerOf, CURRENT_ANALYZER, queryTerms, terms } from '#areas/knowledge/keyword/terms.ts';
import { postingKey } from '#areas/knowledge/records.ts';

const entries = (posting: string) => {
  const read: number[][] = [];
  eachEntry(posting, (position, tf, length) => read.push([position, tf, length]));
  return read;
};

describe('BM25 from global statistics', () => {
  it('scores a term by the base’s N, df and average length, as BM25+ defines it', () => {
    const stats = { chunks: 1000, terms: 50_000 };
    // idf = ln(1 + (1000 - 10 + 0.5) / (10 + 0.5)); tf part with k1 1.2, b 0.7, avgdl 50, len 25, tf 2.
    const expected = Math.log(1 + 990.5 / 10.5) * (0.5 + (2 * 2.2) / (2 + 1.2 * (1 - 0.7 + (0.7 * 25) / 50)));
    expect(termScore(idf(stats, 10), 2, 25, avgLength(stats))).toBeCloseTo(expected, 12);
  });

  it('ranks a rare term above a common one, and stays positive when df passes N for a moment', () => {
    const stats = { chunks: 100, terms: 5000 };
    expect(idf(stats, 1)).toBeGreaterThan(idf(stats, 90));
    expect(idf(stats, 150)).toBeGreaterThan(0);
  });
});

describe('terms and postings', () => {
  it('splits at punctuation and code marks, drops stop words, and caps a query’s terms', () => {
    expect(terms('The `maxAttempts` of C++ is $100, a|b', 1)).toEqual(['maxattempts', 'c++', '$100', 'b']);
    expect(queryTerms(Array.from({ length: 50 }, (_, i) => `w${i}`).join(' '), CURRENT_ANALYZER)).toHaveLength(32);
  });

  it('stems words for bases created now, so a plural or another form of a word finds it', () => {
    expect(terms('The `maxAttempts` of C++ is $100, a|b', CURRENT_ANALYZER)).toEqual([
      'maxattempt',
      'c++',
      '$100',
      'b',
    ]);
    expect(queryTerms('Studies of mitochondrial cells', CURRENT_ANALYZER)).toEqual(
      queryTerms('study mitochondrial cell', CURRENT_ANALYZER),
    );
  });

  it('keeps cutting a base created before stemming as it was indexed', () => {
    expect(analyzerOf(undefined)).toBe(1);
    expect(analyzerOf(2)).toBe(2);
    expect(queryTerms('Studies of cells', analyzerOf(undefined))).toEqual(['studies', 'cells']);
  });

  it('lists each chunk of a term with tf and length, and gives the same keys for the same chunks', () => {
    const chunks = [
      { position: 0, text: 'refund refund policy' },
      { position: 1, text: 'refund window is thirty days' },
    ];
    const a = postingsOf('d1', chunks, 1);
    expect(a.length).toBe(3 + 4);
    const refund = a.postings.get('refund')!;
    expect(refund).toHaveLength(1);
    expect(entries(refund[0]!.entries)).toEqual([
      [0, 2, 3],
      [1, 1, 4],
    ]);
    const b = postingsOf('d1', chunks, 1);
    expect(postingKey('t', 'k', 'refund', b.postings.get('refund')![0]!)).toEqual(
      postingKey('t', 'k', 'refund', refund[0]!),
    );
  });

  it('counts the document’s title among every chunk’s words', () => {
    const doc = postingsOf('d1', [{ position: 0, text: 'refund window', title: 'Billing questions' }], 2);
    expect([...doc.postings.keys()].sort()).toEqual(['bill', 'question', 'refund', 'window']);
    expect(doc.length).toBe(4);
  });

  it('sorts a term’s postings best impact first', () => {
    const strong = postingsOf('d1', [{ position: 0, text: 'refund refund refund' }], 2).postings.get('refund')![0]!;
    const weak = postingsOf('d2', [{ position: 0, text: `refund ${'other '.repeat(40)}` }], 2).postings.get(
      'refund',
    )![0]!;
    expect(postingKey('t', 'k', 'refund', strong).sk < postingKey('t', 'k', 'refund', weak).sk).toBe(true);
  });

  it('splits a term held by thousands of chunks of one document into parts far below the item limit', () => {
    const chunks = Array.from({ length: 4500 }, (_, position) => ({ position, text: 'common word' }));
    const parts = postingsOf('d1', chunks, 2).postings.get('common')!;
    expect(parts.map((p) => p.chunks)).toEqual([2000, 2000, 500]);
    expect(new Set(parts.map((p) => postingKey('t', 'k', 'common', p).sk)).size).toBe(3);
  });
});

it('reads every entry of a posting in place, the last one included', () => {
  expect(entries('0:1:12,17:3:120,4096:12:7')).toEqual([
    [0, 1, 12],
    [17, 3, 120],
    [4096, 12, 7],
  ]);
});
