import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import {
  WIDGET_ASSET,
  WIDGET_ENTRY,
  WIDGET_GZIP_BUDGET_BYTES,
  widgetBuildCommands,
  widgetBuildOptions,
} from '#areas/agents/widget-bundle.ts';
import { afterBundlingFor } from '#lib/bundling.ts';
import { tempDir } from '#test/support/temp-dir.ts';

/**
 * widget.js is built from typed source, stays within its size budget, and the agents function's
 * bundling step (what the CDK runs) writes the same script beside the bundle.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('widget.js', () => {
  it(`is at most ${WIDGET_GZIP_BUDGET_BYTES / 1024} KB gzipped`, async () => {
    const out = await build(widgetBuildOptions(join(ROOT, WIDGET_ENTRY)));
    const script = out.outputFiles[0]!.text;
    expect(gzipSync(script).length).toBeLessThanOrEqual(WIDGET_GZIP_BUDGET_BYTES);
    // Drawn icons only: no character outside the basic plane (emoji) for a font to miss.
    expect(script).not.toMatch(/[\u{10000}-\u{10FFFF}]/u);
  });

  it('type-checks against the DOM with its own tsconfig', () => {
    expect(() =>
      execFileSync(join(ROOT, 'node_modules/.bin/tsc'), ['--noEmit', '-p', 'areas/agents/widget-client'], {
        cwd: ROOT,
        stdio: 'pipe',
      }),
    ).not.toThrow();
  }, 60_000);

  it("is written beside the agents function's bundle by its bundling step, as built from source", async () => {
    const dir = tempDir('widget-bundle-');
    expect(afterBundlingFor('agents')(ROOT, dir)).toEqual(expect.arrayContaining(widgetBuildCommands(ROOT, dir)));
    for (const command of widgetBuildCommands(ROOT, dir)) execFileSync('sh', ['-c', command], { cwd: ROOT });
    const fromSource = (await build(widgetBuildOptions(join(ROOT, WIDGET_ENTRY)))).outputFiles[0]!.text;
    expect(readFileSync(join(dir, WIDGET_ASSET), 'utf8')).toBe(fromSource);
  });
});
