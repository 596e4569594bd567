import './env.ts';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { esbuildOptionsFor } from '#lib/bundling.ts';
import { childEnv } from './cold-init.ts';
import { benchFunctions, OUT_DIR } from './functions.ts';
import { median } from './stats.ts';

/**
 * `npm run bench:eval <function> [runs]`: where a bundle's import spends its evaluation, module by
 * module. The function is built with the stack's options but not minified, a timestamp is taken at
 * every module boundary esbuild marks (`// path`), and the bundle is imported in fresh processes;
 * each module's time runs from its mark to the next, so it includes what its top-level code calls
 * (a schema built at import shows under the module that builds it). Parsing is not in it: this
 * finds work done at import that could wait for the first request. Prints, writes nothing else.
 */
const [name, runsArg] = process.argv.slice(2);
const fn = benchFunctions().find((f) => f.name === name && f.exists);
if (!fn)
  throw new Error(`usage: npm run bench:eval <function> [runs]; functions: ${benchFunctions().map((f) => f.name)}`);
const runs = Number(runsArg ?? 9);

const plain = join(OUT_DIR, `${fn.name}-eval`, 'plain.mjs');
await build({ ...esbuildOptionsFor(fn.entry, fn.name), minify: false, outfile: plain, write: true, logLevel: 'error' });
const [banner, ...rest] = (await readFile(plain, 'utf8')).split('\n');
const marked = rest.map((line) => {
  const module = /^\/\/ (\S+\.(?:ts|js|mjs|cjs))$/.exec(line)?.[1];
  return module ? `globalThis.__marks.push([${JSON.stringify(module)}, performance.now()]);\n${line}` : line;
});
const instrumented = join(OUT_DIR, `${fn.name}-eval`, 'index.mjs');
await writeFile(
  instrumented,
  [
    banner,
    'globalThis.__marks = [["(start)", performance.now()]];',
    ...marked,
    'globalThis.__marks.push(["(end)", performance.now()]);',
  ].join('\n'),
);

const perModule = new Map<string, number[]>();
const script = `await import(process.argv[1]); process.stdout.write(JSON.stringify(globalThis.__marks));`;
for (let i = 0; i < runs; i++) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', script, pathToFileURL(instrumented).href],
    {
      env: childEnv(),
    },
  );
  const marks = JSON.parse(stdout) as [string, number][];
  const spent = new Map<string, number>();
  for (let m = 0; m < marks.length - 1; m++) {
    const module = marks[m]![0].replace(/.*node_modules\//, '');
    spent.set(module, (spent.get(module) ?? 0) + marks[m + 1]![1] - marks[m]![1]);
  }
  for (const [module, ms] of spent) perModule.set(module, [...(perModule.get(module) ?? []), ms]);
}

const rows = [...perModule].map(([module, times]) => ({ module, ms: median(times) })).sort((a, b) => b.ms - a.ms);
const total = rows.reduce((sum, r) => sum + r.ms, 0);
const isSdk = (module: string) => /^(@aws-sdk|@smithy|@aws\/|mnemonist|obliterator)/.test(module);
const own = rows.filter((r) => !isSdk(r.module));
const ownMs = own.reduce((sum, r) => sum + r.ms, 0);
console.log(
  `${fn.name}: evaluation ${total.toFixed(1)} ms (median of ${runs}), outside the AWS SDK ${ownMs.toFixed(1)} ms`,
);
for (const r of own.slice(0, 20)) console.log(`${r.ms.toFixed(2).padStart(7)} ms  ${r.module}`);
