import './env.ts';
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { bundleFunction, floorFor } from './bundle.ts';
import { DEFAULT_COLD_RUNS, measureColdInit } from './cold-init.ts';
import { COLD_ANSWER_TARGET, DEFAULT_ANSWER_RUNS, measureColdAnswers } from './cold-phase.ts';
import { benchFunctions } from './functions.ts';
import { print, restoreStdout, sinkStdout, startHarness } from './harness.ts';
import { measureReads, seed } from './reads.ts';
import { round } from './stats.ts';

/**
 * `npm run bench:cold [name...]`: only the cold phase of `npm run bench`, for the named functions
 * or all. API functions: the cold first answer against its floor (bench/cold-answer.ts), after
 * seeding DynamoDB Local; the fallback and the workers (no authenticated GET): the import-only
 * ratio, information. Prints and writes bench/cold-results.json. BENCH_ANSWER_RUNS (11) rounds per
 * function, BENCH_COLD_RUNS (25) import-only pairs.
 */
const names = process.argv.slice(2);
const answerRuns = Number(process.env.BENCH_ANSWER_RUNS ?? DEFAULT_ANSWER_RUNS);
const importRuns = Number(process.env.BENCH_COLD_RUNS ?? DEFAULT_COLD_RUNS);
const chosen = benchFunctions().filter((f) => f.exists && (!names.length || names.includes(f.name)));
const loadStart = loadavg();
const started = performance.now();

const bundles = new Map<string, Awaited<ReturnType<typeof bundleFunction>>>();
for (const fn of chosen) bundles.set(fn.name, await bundleFunction(fn));

const lines: string[] = [];
const results: Record<string, unknown> = {};

for (const fn of chosen.filter((f) => f.kind !== 'api')) {
  const b = bundles.get(fn.name)!;
  const floor = await floorFor(b);
  const c = await measureColdInit(b.outfile, floor.outfile, importRuns);
  results[fn.name] = { kind: fn.kind, bundleKb: round(b.bytes / 1024, 1), importOnly: c };
  lines.push(
    `${fn.name.padEnd(20)} ${(b.bytes / 1024).toFixed(0).padStart(5)} KB  import-only ${c.importMs.toFixed(1)} vs ${c.floorImportMs.toFixed(1)} ms = ${c.importRatio.toFixed(2)} (information; floor ${floor.key})`,
  );
}

const api = chosen.filter((f) => f.kind === 'api');
if (api.length) {
  sinkStdout();
  const h = await startHarness();
  try {
    print(`seeded: ${(await seed(h)).created.length} records`);
    const reads = await measureReads(h, api);
    const answers = await measureColdAnswers(
      h,
      api.map((f) => ({ name: f.name, outfile: bundles.get(f.name)!.outfile })),
      reads,
      () => answerRuns,
      (text) => print(`[bench:cold] ${text}`),
    );
    for (const fn of api) {
      const a = answers.get(fn.name)!;
      const kb = (bundles.get(fn.name)!.bytes / 1024).toFixed(0).padStart(5);
      results[fn.name] = { kind: fn.kind, bundleKb: round(bundles.get(fn.name)!.bytes / 1024, 1), answer: a };
      if (!('ratio' in a)) {
        lines.push(`${fn.name.padEnd(20)} ${kb} KB  ${a.note}`);
        continue;
      }
      const verdict = a.ratio <= COLD_ANSWER_TARGET ? 'pass' : 'MISS';
      lines.push(
        `${fn.name.padEnd(20)} ${kb} KB  answer ${a.answerMs.toFixed(1)} vs ${a.floorAnswerMs.toFixed(1)} ms = ${a.ratio.toFixed(2)} ${verdict}  (imported ${a.importedMs.toFixed(1)} vs ${a.floorImportedMs.toFixed(1)}, first call ${a.firstCallMs.toFixed(1)} vs ${a.floorFirstCallMs.toFixed(1)}, cpu ${a.cpuMs.toFixed(0)} vs ${a.floorCpuMs.toFixed(0)} = ${a.cpuRatio.toFixed(2)})  ${a.routeId} [${a.kind}, ${a.caller}]  floor ${a.floorKey} ${a.floorKb} KB${a.note ? `  (${a.note})` : ''}`,
      );
    }
  } finally {
    await h.stop();
    restoreStdout();
  }
}

const machine = {
  loadAverageStart: loadStart.map((l) => round(l, 2)),
  loadAverageEnd: loadavg().map((l) => round(l, 2)),
  seconds: round((performance.now() - started) / 1000, 1),
  answerRuns,
  target: COLD_ANSWER_TARGET,
};
for (const line of lines) print(line);
print(
  `load average ${machine.loadAverageStart.join(' ')} -> ${machine.loadAverageEnd.join(' ')}; ${machine.seconds} s`,
);
await writeFile(
  new URL('./cold-results.json', import.meta.url),
  `${JSON.stringify({ generatedAt: new Date().toISOString(), machine, functions: results }, null, 2)}\n`,
);
