import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { median, ratio } from './stats.ts';

const run = promisify(execFile);

/**
 * Runs in a fresh Node process: `importMs` is the import alone; `startMs` is the time from the
 * process's time origin (its start) until the module is imported, which is what a cold start
 * pays before the first event.
 */
const RUNNER = `const t = performance.now();
await import(process.argv[1]);
const done = performance.now();
process.stdout.write(JSON.stringify({ importMs: done - t, startMs: done }));`;

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  return {
    ...env,
    AWS_REGION: env.AWS_REGION ?? 'us-east-1',
    AWS_SDK_JS_SUPPRESS_NODE_DEPRECATION_WARNING: '1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

export interface ImportTiming {
  importMs: number;
  startMs: number;
}

export async function importOnce(file: string): Promise<ImportTiming> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', RUNNER, pathToFileURL(file).href], {
    env: childEnv(),
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as ImportTiming;
}

export interface ColdInit {
  runs: number;
  /** Median ms from process start to "imported" (function, floor) and their ratio: the target. */
  startMs: number;
  floorStartMs: number;
  ratio: number;
  /** Median ms of the import alone and its ratio (stricter: no Node boot in either side). */
  importMs: number;
  floorImportMs: number;
  importRatio: number;
}

/** Function and floor alternate in one loop (order flipped every run), after one discarded run each. */
export async function measureColdInit(fnFile: string, floorFile: string, runs: number): Promise<ColdInit> {
  await importOnce(fnFile);
  await importOnce(floorFile);
  const fn: ImportTiming[] = [];
  const floor: ImportTiming[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      fn.push(await importOnce(fnFile));
      floor.push(await importOnce(floorFile));
    } else {
      floor.push(await importOnce(floorFile));
      fn.push(await importOnce(fnFile));
    }
  }
  const startMs = median(fn.map((t) => t.startMs));
  const floorStartMs = median(floor.map((t) => t.startMs));
  const importMs = median(fn.map((t) => t.importMs));
  const floorImportMs = median(floor.map((t) => t.importMs));
  return {
    runs,
    startMs,
    floorStartMs,
    ratio: ratio(startMs, floorStartMs),
    importMs,
    floorImportMs,
    importRatio: ratio(importMs, floorImportMs),
  };
}
