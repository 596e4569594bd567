import { describe, expect, it } from 'vitest';
import {
  assertActionMove,
  assertBiaMove,
  assertRiskMove,
  impactScoreOf,
  probabilityScoreOf,
} from '#areas/bcm/states.ts';

const allowed = (check: (from: number, to: number) => void, n: number) =>
  Array.from({ length: n }, (_, from) =>
    Array.from({ length: n }, (_, to) => to).filter((to) => {
      try {
        check(from, to);
        return true;
      } catch {
        return false;
      }
    }),
  );

describe('BCM state tables', () => {
  it('BIA: Draft→InProgress→Completed, InProgress→Draft, nothing else', () => {
    expect(allowed(assertBiaMove, 3)).toEqual([[1], [0, 2], []]);
  });
  it('risk: forward one step, any open state may close, Closed reopens to Identified', () => {
    expect(allowed(assertRiskMove, 5)).toEqual([[1, 4], [2, 4], [3, 4], [4], [0]]);
  });
  it('mitigation action: Completed and Cancelled are final; staying is allowed', () => {
    expect(allowed(assertActionMove, 4)).toEqual([[0, 1, 2, 3], [0, 1, 2, 3], [2], [3]]);
  });
  it('scores: impact from the level, probability from the worst assessment, both 1-5', () => {
    expect([0, 1, 2, 3].map(impactScoreOf)).toEqual([2, 3, 4, 5]);
    expect(probabilityScoreOf(3, [])).toBe(1);
    expect(probabilityScoreOf(3, [5, 20])).toBe(4);
    expect(probabilityScoreOf(0, [25])).toBe(5);
    expect(probabilityScoreOf(3, [1])).toBe(1);
  });
});
