import { describe, expect, it } from 'vitest';
import { resolveRange } from '#areas/analytics/range.ts';

const TODAY = '2026-05-31';

describe('resolveRange', () => {
  it('answers a refusal, never a throw, for an end that is not a calendar date', () => {
    for (const [q, path] of [
      [{ startDate: 'abc' }, 'startDate'],
      [{ endDate: '' }, 'endDate'],
      [{ startDate: '2026-05-01,2026-05-02' }, 'startDate'],
      [{ startDate: '2026-02-30' }, 'startDate'],
      [{ startDate: '2026-05-01', endDate: '99999-01-01' }, 'endDate'],
    ] as const) {
      expect(resolveRange(q, TODAY), JSON.stringify(q)).toEqual({
        ok: false,
        path,
        message: expect.stringMatching(/calendar date/),
      });
    }
  });

  it('defaults to the 30 days ending today, or around the given end', () => {
    expect(resolveRange({}, TODAY)).toEqual({ ok: true, startDate: '2026-05-02', endDate: TODAY });
    expect(resolveRange({ startDate: '2026-01-01' }, TODAY)).toEqual({
      ok: true,
      startDate: '2026-01-01',
      endDate: '2026-01-30',
    });
  });
});
