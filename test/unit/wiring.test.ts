import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { defineEvent, emit, on } from '#shared/data/events.ts';
import { answer, ask, defineQuery } from '#shared/data/queries.ts';
import { withWiring } from '#shared/data/wiring.ts';

const SAID = defineEvent('test.said', () => z.object({ text: z.string() }));
const DOUBLE = defineQuery<[n: number], number>('test.double');

describe('events', () => {
  it('runs the wired subscribers in order, each to its end, before emit returns, with the parsed payload', async () => {
    const log: string[] = [];
    const slow = on(SAID, async (p) => {
      await new Promise((r) => setTimeout(r, 20));
      log.push(`slow ${p.text}`);
    });
    const fast = on(SAID, async (p) => void log.push(`fast ${p.text}`));
    await withWiring([slow, fast], async () => {
      await emit(SAID, { text: 'hi', extra: 1 } as { text: string });
      log.push('after');
    });
    expect(log).toEqual(['slow hi', 'fast hi', 'after']);
  });

  it('throws when the running function wired no subscriber for the event', async () => {
    await expect(emit(SAID, { text: 'x' })).rejects.toThrow(
      /event:test.said was emitted, but this function wires no subscriber/,
    );
    await expect(withWiring([answer(DOUBLE, async (n) => n * 2)], () => emit(SAID, { text: 'x' }))).rejects.toThrow(
      /no subscriber/,
    );
  });

  it("a subscriber's failure is the emitter's; a payload that breaks the schema reaches no subscriber", async () => {
    let ran = 0;
    const failing = on(SAID, async () => {
      throw new Error('subscriber down');
    });
    const counting = on(SAID, async () => void ran++);
    await expect(withWiring([failing], () => emit(SAID, { text: 'x' }))).rejects.toThrow('subscriber down');
    await expect(withWiring([counting], () => emit(SAID, { text: 3 } as never))).rejects.toThrow(/breaks its schema/);
    expect(ran).toBe(0);
  });

  it('each invocation sees its own wiring, however they interleave', async () => {
    const seen: string[] = [];
    const run = (who: string, delay: number) =>
      withWiring([on(SAID, async (p) => void seen.push(`${who}:${p.text}`))], async () => {
        await new Promise((r) => setTimeout(r, delay));
        await emit(SAID, { text: who });
      });
    await Promise.all([run('a', 15), run('b', 1), run('c', 8)]);
    expect(seen.sort()).toEqual(['a:a', 'b:b', 'c:c']);
  });
});

describe('queries', () => {
  it('answers through the wiring; a question nobody wired an answer for throws', async () => {
    expect(await withWiring([answer(DOUBLE, async (n) => n * 2)], () => ask(DOUBLE, 21))).toBe(42);
    await expect(ask(DOUBLE, 1)).rejects.toThrow(/query:test.double was asked, but this function wires no answer/);
  });
});
