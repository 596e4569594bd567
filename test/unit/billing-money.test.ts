import { describe, expect, it } from 'vitest';
import { toMinor } from '#areas/billing/money.ts';

describe('toMinor: amounts are checked on their minor units', () => {
  it.each([
    [12.5, 'EUR', 1250],
    [19.99, 'USD', 1999],
    [0.01, 'USD', 1],
    [4.35, 'USD', 435],
    [1200, 'JPY', 1200],
    [1.234, 'KWD', 1234],
    [1_000_000, 'USD', 100_000_000],
  ])('%s %s is %s minor units', (amount, currency, minor) => {
    expect(toMinor(amount, currency)).toEqual({ ok: true, minor });
  });

  it.each([
    [1e-7, 'USD', /at least 0.01/],
    [0.004, 'USD', /at least 0.01/],
    [1e-300, 'USD', /at least 0.01/],
    [0.005, 'USD', /at most 2 decimals/],
    [1.001, 'USD', /at most 2 decimals/],
    [0.1 + 0.2, 'USD', /at most 2 decimals/],
    [1.5, 'JPY', /at most 0 decimals/],
    [0, 'USD', /greater than zero/],
    [-5, 'USD', /greater than zero/],
    [Number.NaN, 'USD', /greater than zero/],
    [2_000_000, 'USD', /at most/],
    [10, 'XYZ', /Unknown currency/],
  ])('%s %s is refused', (amount, currency, message) => {
    const out = toMinor(amount, currency);
    expect(out.ok).toBe(false);
    expect((out as { message: string }).message).toMatch(message);
  });
});
