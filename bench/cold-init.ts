import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { median, ratio } from './stats.ts';

const run = promisify(execFile);

/**
 * Runs in a fresh Node process: `importMs` is the import alone, from its start until the handler
 * is ready (the verdict: Node's own boot, the same on both sides, stays out); `startMs` is the time
 * from the process's time origin (its start) until the module is imported (information).
 */
const RUNNER = `const c = process.cpuUsage();
const t = performance.now();
await import(process.argv[1]);
const done = performance.now();
const cpu = process.cpuUsage(c);
process.stdout.write(JSON.stringify({ importMs: done - t, startMs: done, cpuMs: (cpu.user + cpu.system) / 1000 }));`;

export function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  return {
    ...env,
    AWS_REGION: env.AWS_REGION ?? 'us-east-1',
    AWS_SDK_JS_SUPPRESS_NODE_DEPRECATION_WARNING: '1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/** Pairs per bundle: at 15 a ratio still moved by about 0.1 between runs on a shared 2-core machine. */
export const DEFAULT_COLD_RUNS = 25;

export interface ImportTiming {
  importMs: number;
  startMs: number;
  /** CPU time (user + system) of the import: less sensitive to other work on the machine. */
  cpuMs: number;
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
  /** Median ms of the import alone (function, floor). */
  importMs: number;
  floorImportMs: number;
  /**
   * The target: the median of the per-pair ratios (each function run over the floor run beside
   * it). The machine's speed drifts over a run; a pair shares the moment, so the drift cancels.
   */
  importRatio: number;
  /** Median ms from process start to "imported" and their ratio (information: Node's boot pulls it toward 1). */
  startMs: number;
  floorStartMs: number;
  startRatio: number;
  /** Median CPU ms of the import and their ratio (information: steadier when the machine is busy). */
  cpuMs: number;
  floorCpuMs: number;
  cpuRatio: number;
}

/** Function and floor alternate in pairs (order flipped every pair), after one discarded run each. */
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
  const cpuMs = median(fn.map((t) => t.cpuMs));
  const floorCpuMs = median(floor.map((t) => t.cpuMs));
  return {
    runs,
    importMs,
    floorImportMs,
    importRatio: median(fn.map((t, i) => ratio(t.importMs, floor[i]!.importMs))),
    startMs,
    floorStartMs,
    startRatio: ratio(startMs, floorStartMs),
    cpuMs,
    floorCpuMs,
    cpuRatio: ratio(cpuMs, floorCpuMs),
  };
}
