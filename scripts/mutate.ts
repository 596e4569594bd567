import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Mutant, mutants } from '#test/mutation/mutants.ts';

/**
 * `npm run mutate [-- id...]`: plants each bug of test/mutation/mutants.ts in the working tree, one
 * at a time, runs the tests that should notice it, and puts the file back. A mutant the tests pass
 * on survived: a place where a real bug would land unseen. Prints a Markdown table; writes nothing.
 * Run it on a clean checkout: the planted file is restored even on Ctrl-C, but nothing else is.
 */
const ROOT = join(import.meta.dirname, '..');
const wanted = new Set(process.argv.slice(2));
const chosen = wanted.size ? mutants.filter((m) => wanted.has(m.id)) : mutants;

function vitest(files: string[]): { ok: boolean; seconds: number } {
  const started = Date.now();
  const run = spawnSync('npx', ['vitest', 'run', '--bail', '1', ...files], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'ignore'],
    env: { ...process.env, CI: '1' },
  });
  return { ok: run.status === 0, seconds: Math.round((Date.now() - started) / 1000) };
}

/** The file with the bug in it; refuses a mutant whose text is not in the file exactly once. */
function planted(m: Mutant, original: string): string {
  const at = original.indexOf(m.find);
  if (at < 0 || original.indexOf(m.find, at + 1) >= 0)
    throw new Error(`${m.id}: the text to replace must occur exactly once in ${m.file}`);
  return original.slice(0, at) + m.replace + original.slice(at + m.find.length);
}

// A mutant is only caught if its tests pass without it.
const baseline = vitest([...new Set(chosen.flatMap((m) => m.tests))]);
if (!baseline.ok) throw new Error('The tests fail without any mutant: fix them first');

const rows: string[] = [];
let restore: (() => void) | null = null;
process.on('SIGINT', () => {
  restore?.();
  process.exit(130);
});

for (const m of chosen) {
  const path = join(ROOT, m.file);
  const original = readFileSync(path, 'utf8');
  const mutated = planted(m, original);
  restore = () => writeFileSync(path, original);
  writeFileSync(path, mutated);
  let result: { ok: boolean; seconds: number };
  try {
    result = vitest(m.tests);
  } finally {
    restore();
    restore = null;
  }
  const verdict = result.ok ? 'SURVIVED' : 'caught';
  rows.push(`| ${m.id} | ${m.bug} | ${verdict} | ${result.seconds} s |`);
  console.error(`${m.id}: ${verdict} (${result.seconds} s)`);
}

const caught = rows.filter((r) => r.includes('| caught |')).length;
console.log(['| mutant | planted bug | result | time |', '|---|---|---|---|', ...rows].join('\n'));
console.log(`\n${caught} of ${rows.length} caught`);
if (caught < rows.length) process.exitCode = 1;
