import { describe, expect, it } from 'vitest';
import * as web from '#shared/runtime/web-streams-on-first-use.ts';

/** The stand-in the bundles get for node:stream/web behaves as Node's own streams. */
describe('node:stream/web on first use', () => {
  it('answers instanceof, constructs and reads like the global it forwards to', async () => {
    const stream = new web.ReadableStream({
      start(c) {
        c.enqueue('a');
        c.close();
      },
    });
    expect(stream).toBeInstanceOf(globalThis.ReadableStream);
    expect(stream instanceof web.ReadableStream).toBe(true);
    expect({} instanceof web.ReadableStream).toBe(false);
    const reader = stream.getReader();
    expect(await reader.read()).toEqual({ value: 'a', done: false });
    expect(typeof web.ReadableStream.from).toBe('function');
    expect(new web.TextEncoderStream()).toBeInstanceOf(globalThis.TextEncoderStream);
  });

  it('exports every name node:stream/web does', async () => {
    const real = await import('node:stream/web');
    expect(Object.keys(web).sort()).toEqual(
      Object.keys(real)
        .filter((k) => k !== 'default')
        .sort(),
    );
  });
});
