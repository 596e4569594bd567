import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { variantOf } from '#areas/prompts/ab-split.ts';

const N = 10_000;
/** Conversation-shaped ids, the same every run (a version-4 UUID layout over SHA-256 of a counter). */
const ids = Array.from({ length: N }, (_, i) => {
  const h = createHash('sha256').update(`conversation-${i}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
});
const countB = (shareB: number) => ids.filter((id) => variantOf(id, shareB) === 'B').length;

/** Pearson's chi-square of the observed B/A counts against the configured share (one degree of freedom). */
function chiSquare(b: number, shareB: number) {
  const expectedB = (N * shareB) / 100;
  const expectedA = N - expectedB;
  return (b - expectedB) ** 2 / expectedB + (N - b - expectedA) ** 2 / expectedA;
}
/** The 0.1% critical value of chi-square with one degree of freedom. */
const CRITICAL = 10.828;

describe('A/B split of conversations', () => {
  it.each([1, 10, 25, 50, 73, 90, 99.5])('%s%% to B over 10,000 conversations passes a chi-square test', (shareB) => {
    const b = countB(shareB);
    expect(chiSquare(b, shareB)).toBeLessThan(CRITICAL);
  });

  it('0 gives B to none and 100 to all, exactly', () => {
    expect(countB(0)).toBe(0);
    expect(countB(100)).toBe(N);
  });

  it('the chi-square test sees a split that is off by two points', () => {
    // The check above would catch a biased split: 52% observed against 50% configured fails it.
    expect(chiSquare(5200, 50)).toBeGreaterThan(CRITICAL);
    expect(Math.abs(countB(50) - 5000)).toBeLessThan(200);
  });

  it('a conversation keeps its variant: the same id always gives the same answer, and raising B only moves A to B', () => {
    for (const id of ids.slice(0, 500)) {
      expect(variantOf(id, 30)).toBe(variantOf(id, 30));
      if (variantOf(id, 30) === 'B') expect(variantOf(id, 60)).toBe('B');
    }
  });
});
