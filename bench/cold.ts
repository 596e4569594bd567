import './env.ts';
import { bundleFunction, floorFor } from './bundle.ts';
import { DEFAULT_COLD_RUNS, measureColdInit } from './cold-init.ts';
import { benchFunctions } from './functions.ts';
import { COLD_RATIO_TARGET } from './report.ts';

/**
 * `npm run bench:cold [name...]`: only the cold-init phase of `npm run bench` (bundle, floor,
 * import-only ratio), for the named functions or all; prints, writes nothing. For iterating on
 * a bundle's import cost without the minutes of the full run.
 */
const names = process.argv.slice(2);
const runs = Number(process.env.BENCH_COLD_RUNS ?? DEFAULT_COLD_RUNS);
for (const fn of benchFunctions().filter((f) => f.exists && (!names.length || names.includes(f.name)))) {
  const b = await bundleFunction(fn);
  const floor = await floorFor(b);
  const c = await measureColdInit(b.outfile, floor.outfile, runs);
  const verdict = c.importRatio <= COLD_RATIO_TARGET ? 'pass' : 'MISS';
  console.log(
    `${fn.name.padEnd(14)} ${(b.bytes / 1024).toFixed(0).padStart(5)} KB  import ${c.importMs.toFixed(1)} vs ${c.floorImportMs.toFixed(1)} ms = ${c.importRatio.toFixed(2)}  (start ${c.startRatio.toFixed(2)}, cpu ${c.cpuRatio.toFixed(2)})  floor ${floor.key}  ${verdict}`,
  );
}
