import { describe, expect, it } from 'vitest';
import { BROWSER_LIMITS, budgetOf, parseSteps } from '#areas/tools/browser/steps.ts';

describe('Browser Action steps as the model sends them', () => {
  it('takes each action with its fields', () => {
    const steps = [
      { action: 'navigate', url: 'https://shop.example.com/' },
      { action: 'click', text: 'Buy' },
      { action: 'click', selector: '#buy' },
      { action: 'fill', selector: '#q', value: '' },
      { action: 'select', selector: '#size', value: 'M' },
      { action: 'wait_for', selector: '.done' },
      { action: 'read' },
      { action: 'read', selector: 'main' },
      { action: 'screenshot' },
    ];
    expect(parseSteps({ steps }, 25)).toEqual({ ok: true, steps });
  });

  it('refuses what it cannot run, saying where, before any browser starts', () => {
    const bad = [
      { steps: [] },
      { steps: [{ action: 'upload', selector: '#f' }] },
      { steps: [{ action: 'click' }] },
      { steps: [{ action: 'click', selector: '#a', text: 'A' }] },
      { steps: [{ action: 'fill', selector: '#a', value: 'x'.repeat(BROWSER_LIMITS.valueLength + 1) }] },
      { steps: [{ action: 'navigate', url: `https://a.example/${'x'.repeat(BROWSER_LIMITS.urlLength)}` }] },
      { steps: 'navigate to example.com' },
      {},
    ];
    for (const args of bad) {
      const r = parseSteps(args, 25);
      expect(r.ok, JSON.stringify(args).slice(0, 80)).toBe(false);
      if (!r.ok) expect(r.error).toEqual(expect.stringMatching(/^The arguments must be \{"steps": \[\.\.\.\]\}/));
    }
  });

  it('counts steps against the tool limit', () => {
    const steps = Array.from({ length: 4 }, () => ({ action: 'read' }));
    expect(parseSteps({ steps }, 3)).toEqual({
      ok: false,
      error: 'At most 3 steps per call; 4 were given. Nothing was done.',
    });
    expect(parseSteps({ steps }, 4).ok).toBe(true);
  });

  it('clamps the stored parameters to the platform bounds', () => {
    expect(budgetOf({ maxSteps: 100, timeoutSeconds: 300, allowedHosts: ['Shop.Example.com'] })).toEqual({
      maxSteps: BROWSER_LIMITS.maxSteps,
      timeoutSeconds: BROWSER_LIMITS.maxSeconds,
      allowedHosts: ['shop.example.com'],
    });
    expect(budgetOf({ maxSteps: 0, timeoutSeconds: 0 })).toEqual({ maxSteps: 1, timeoutSeconds: 1, allowedHosts: [] });
    expect(budgetOf({})).toEqual({ maxSteps: 10, timeoutSeconds: 20, allowedHosts: [] });
  });
});
