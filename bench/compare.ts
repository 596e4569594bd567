import './env.ts';
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { bundleFunction } from './bundle.ts';
import { DEFAULT_COLD_RUNS, measureColdInit } from './cold-init.ts';
import { benchFunctions, OUT_DIR, ROOT } from './functions.ts';

/**
 * `npm run bench:compare -- <rev> [name...]`: each function's cold import now against the same
 * function built from commit <rev> (a detached worktree, bundled by that commit's own lib/bundling.ts),
 * in interleaved pairs in fresh processes. A ratio above 1 means the working tree imports slower;
 * the judge of a change that must not make any function's cold start worse. Prints, writes nothing.
 */
const [rev, ...names] = process.argv.slice(2);
if (!rev) throw new Error('usage: npm run bench:compare -- <rev> [function...]');
const runs = Number(process.env.BENCH_COLD_RUNS ?? DEFAULT_COLD_RUNS);
const base = join(OUT_DIR, 'compare-base');

if (existsSync(base)) execFileSync('git', ['worktree', 'remove', '--force', base], { cwd: ROOT });
execFileSync('git', ['worktree', 'add', '--detach', base, rev], { cwd: ROOT, stdio: 'ignore' });
symlinkSync(join(ROOT, 'node_modules'), join(base, 'node_modules'));

type Bundling = typeof import('#lib/bundling.ts');
const then = (await import(pathToFileURL(join(base, 'lib/bundling.ts')).href)) as Bundling;

/** The function as commit <rev> bundled it, with what its CDK step puts beside the bundle. */
async function bundleAtBase(name: string): Promise<{ outfile: string; bytes: number } | null> {
  const entry = join(base, 'functions', name, 'index.ts');
  if (!existsSync(entry)) return null;
  const outDir = join(OUT_DIR, 'compare-base-out', name);
  const outfile = join(outDir, 'index.mjs');
  const result = await build({
    ...then.esbuildOptionsFor(entry),
    absWorkingDir: base,
    outfile,
    metafile: true,
    write: true,
    logLevel: 'error',
  });
  for (const command of then.afterBundlingFor(name)(base, outDir)) execSync(command, { cwd: base, stdio: 'ignore' });
  const output = Object.values(result.metafile!.outputs)[0]!;
  return { outfile, bytes: output.bytes };
}

try {
  for (const fn of benchFunctions().filter((f) => f.exists && (!names.length || names.includes(f.name)))) {
    const old = await bundleAtBase(fn.name);
    if (!old) {
      console.log(`${fn.name.padEnd(20)} (not at ${rev})`);
      continue;
    }
    const now = await bundleFunction(fn);
    const c = await measureColdInit(now.outfile, old.outfile, runs);
    console.log(
      `${fn.name.padEnd(20)} ${(now.bytes / 1024).toFixed(0).padStart(5)} KB (was ${(old.bytes / 1024).toFixed(0).padStart(5)})  import ${c.importMs.toFixed(1)} vs ${c.floorImportMs.toFixed(1)} ms = ${c.importRatio.toFixed(3)}  (cpu ${c.cpuRatio.toFixed(3)})`,
    );
  }
} finally {
  execFileSync('git', ['worktree', 'remove', '--force', base], { cwd: ROOT });
}
