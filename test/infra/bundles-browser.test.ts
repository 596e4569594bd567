import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { esbuildOptionsFor } from '#lib/bundling.ts';
import { entryOf } from '#lib/functions.ts';
import { API_GROUPS, WORKERS } from '#shared/routes/groups.ts';

/** The packages a bundle reads, from esbuild's metafile (as the CDK builds it), and what it leaves external. */
async function bundleOf(name: string) {
  const out = await build({
    ...esbuildOptionsFor(entryOf(name), name),
    write: false,
    metafile: true,
    outfile: 'index.mjs',
  });
  const inputs = Object.keys(out.metafile.inputs);
  const imports = Object.values(out.metafile.outputs).flatMap((o) =>
    o.imports.filter((i) => i.external).map((i) => i.path),
  );
  return { inputs, imports };
}

const CHROMIUM = /node_modules\/(playwright-core|@sparticuz\/chromium)\//;

describe('Chromium stays in the browser function', () => {
  const callers = [
    ...Object.entries(API_GROUPS)
      .filter(([, s]) => 'invokes' in s)
      .map(([n]) => n),
    ...Object.entries(WORKERS)
      .filter(([, s]) => 'invokes' in s)
      .map(([n]) => n),
  ];

  it('no function that runs agent turns bundles or imports playwright-core or @sparticuz/chromium', async () => {
    expect(callers.sort()).toEqual(['agent-runtime', 'channel-turn-worker', 'conversations']);
    for (const name of callers) {
      const b = await bundleOf(name);
      expect(
        b.inputs.filter((i) => CHROMIUM.test(i)),
        name,
      ).toEqual([]);
      expect(
        b.imports.filter((i) => /playwright|sparticuz/.test(i)),
        name,
      ).toEqual([]);
    }
  });

  it('the browser function bundles the Chromium package and loads playwright-core from beside the bundle', async () => {
    const b = await bundleOf('browser-action');
    expect(b.inputs.some((i) => i.includes('node_modules/@sparticuz/chromium/'))).toBe(true);
    expect(b.inputs.filter((i) => i.includes('node_modules/playwright-core/'))).toEqual([]);
    expect(b.imports).toContain('playwright-core');
  });
});
