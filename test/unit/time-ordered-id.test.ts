import { describe, expect, it } from 'vitest';
import { millisecondOf, timeOrderedId } from '#shared/data/time-ordered-id.ts';

describe('time-ordered ids', () => {
  it('are UUID version 7 with the RFC 9562 variant, carrying their millisecond', () => {
    const now = Date.UTC(2026, 11, 2, 6, 0, 0, 123);
    const id = timeOrderedId(now);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(millisecondOf(id)).toBe(now);
  });

  it('sort in the order they were made, even within one millisecond and with the clock going back', () => {
    const now = Date.now() + 60_000;
    const ids = [timeOrderedId(now), timeOrderedId(now), timeOrderedId(now - 5), timeOrderedId(now + 1)];
    for (let i = 0; i < 5_000; i++) ids.push(timeOrderedId(now + 1));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('put an answer after what it answers, in a later millisecond', () => {
    const question = timeOrderedId(Date.now() + 120_000);
    const answer = timeOrderedId(Date.now(), question);
    expect(answer > question).toBe(true);
    expect(millisecondOf(answer)).toBeGreaterThan(millisecondOf(question));
  });
});
