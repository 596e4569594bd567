import './env.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, platform, setPriority } from 'node:os';
import { join } from 'node:path';
import { measureAuth } from './auth.ts';
import { bundleFunction, floorFor, rel, type BundleResult, type FloorBundle } from './bundle.ts';
import { DEFAULT_COLD_RUNS, measureColdInit } from './cold-init.ts';
import { DEFAULT_ANSWER_RUNS, measureColdAnswers } from './cold-phase.ts';
import { benchFunctions, OUT_DIR, ROOT } from './functions.ts';
import { print, restoreStdout, sinkStdout, startHarness, type Harness } from './harness.ts';
import { measureReads } from './reads.ts';
import {
  COLD_ANSWER_TARGET,
  formatMarkdown,
  formatText,
  targetRows,
  WARM_OVERHEAD_TARGET_MS,
  type FunctionRow,
  type Results,
  type WarmWriteRow,
} from './report.ts';
import { measureDashboardScale } from './bcm-dashboard.ts';
import { measureScale } from './scale.ts';
import { measureKnowledge } from './knowledge.ts';
import { measureConversations } from './conversations.ts';
import { measureGateway } from './gateway.ts';
import { measureGatewayEdge } from './gateway-edge.ts';
import { measureWebhooks } from './webhooks.ts';
import { seed } from './reads.ts';
import { pool, round } from './stats.ts';
import { fixedRequest, measureWarm } from './warm.ts';
import { writeScenarios } from './writes.ts';
import { writeDocs } from './write-docs.ts';

/**
 * `npm run bench`: bundle every function as CDK does, time the import alone of the fallback and the
 * workers against a floor (information), then against DynamoDB Local: request counts, each API
 * function's cold first answer against its hand-built floor (the cold-start target), warm
 * overhead, list cost at scale and authentication. Prints tables, writes bench/results.json.
 * Knobs: BENCH_COLD_RUNS (25), BENCH_WARM_ITERATIONS (300), BENCH_SCALE_ITERATIONS (25),
 * BENCH_COLD_BUDGET_SECONDS (100: import-only runs per function shrink, to no fewer than 7, to fit),
 * BENCH_ANSWER_RUNS (11) and BENCH_ANSWER_BUDGET_SECONDS (240: the cold first answer's rounds shrink,
 * to no fewer than 5, to fit),
 * BENCH_NICE (-10: the bench and its children, DynamoDB Local included, ask for a higher CPU
 * priority so other work on the machine disturbs the timings less; ignored without the right).
 */
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? DEFAULT_COLD_RUNS);
const MIN_COLD_RUNS = Math.min(7, COLD_RUNS);
const COLD_BUDGET_SECONDS = Number(process.env.BENCH_COLD_BUDGET_SECONDS ?? 100);
const ANSWER_RUNS = Number(process.env.BENCH_ANSWER_RUNS ?? DEFAULT_ANSWER_RUNS);
const MIN_ANSWER_RUNS = Math.min(5, ANSWER_RUNS);
const ANSWER_BUDGET_SECONDS = Number(process.env.BENCH_ANSWER_BUDGET_SECONDS ?? 240);
const NICE = Number(process.env.BENCH_NICE ?? -10);
const WARM_ITERATIONS = Number(process.env.BENCH_WARM_ITERATIONS ?? 300);
const SCALE_ITERATIONS = Number(process.env.BENCH_SCALE_ITERATIONS ?? 25);

let priority = 'default';
if (NICE) {
  try {
    setPriority(0, NICE);
    priority = `nice ${NICE}`;
  } catch {
    priority = `default (nice ${NICE} not permitted)`;
  }
}

const started = performance.now();
const loadAverageStart = loadavg();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
const step = (text: string) => print(`[bench ${elapsed()}] ${text}`);
/** Seconds spent in each phase, for the time budget (the whole run must stay under 10 minutes). */
const phases: Record<string, number> = {};
let phaseStart = performance.now();
const phaseDone = (name: string) => {
  const now = performance.now();
  phases[name] = round((now - phaseStart) / 1000, 1);
  phaseStart = now;
};

const fns = benchFunctions();
await mkdir(OUT_DIR, { recursive: true });

step(`bundling ${fns.filter((f) => f.exists).length} functions with lib/bundling.ts options`);
const bundles = new Map<string, BundleResult>();
const floorsOf = new Map<string, FloorBundle>();
await pool(
  fns
    .filter((f) => f.exists)
    .map((fn) => async () => {
      const b = await bundleFunction(fn);
      bundles.set(fn.name, b);
      floorsOf.set(fn.name, await floorFor(b));
    }),
  2,
);

phaseDone('bundle');

const rows: FunctionRow[] = fns.map((fn) => {
  const b = bundles.get(fn.name);
  const floor = floorsOf.get(fn.name);
  return {
    name: fn.name,
    kind: fn.kind,
    exists: fn.exists,
    bundleKb: b ? round(b.bytes / 1024, 1) : null,
    topPackages: b?.topPackages ?? [],
    sdkPackages: b?.sdkPackages ?? [],
    floor: floor ? { key: floor.key, kb: round(floor.bytes / 1024, 1) } : null,
    cold: null,
    coldPass: null,
    answer: null,
    answerPass: null,
    warm: null,
    warmPass: null,
    ...(fn.exists ? {} : { note: `functions/${fn.name}/index.ts does not exist yet` }),
  };
});

// Import-only runs (information) for the functions that answer no GET: the fallback and the
// workers; each function and its floor alternate; the number of runs shrinks (not below
// MIN_COLD_RUNS) when the machine is slow, so the phase fits its budget. The API functions' cold
// start is their first answer, timed once DynamoDB Local holds their records (below).
const coldRows = rows.filter((r) => r.exists && r.kind !== 'api');
/**
 * Runs per side for the next function so the phase ends within its budget: the time per process
 * spawned so far, shared among the functions left (two sides each, plus a warm-up).
 */
function runsWithinBudget(
  start: number,
  spawns: number,
  budgetSeconds: number,
  left: number,
  min: number,
  max: number,
) {
  const spent = (performance.now() - start) / 1000;
  const perSpawn = spawns ? spent / spawns : 0;
  const budgetRuns = perSpawn ? Math.floor((budgetSeconds - spent) / left / perSpawn / 2) - 1 : max;
  return Math.max(min, Math.min(max, budgetRuns));
}

const coldStart = performance.now();
let spawns = 0;
for (const [i, row] of coldRows.entries()) {
  const b = bundles.get(row.name)!;
  const floor = floorsOf.get(row.name)!;
  const runs = runsWithinBudget(coldStart, spawns, COLD_BUDGET_SECONDS, coldRows.length - i, MIN_COLD_RUNS, COLD_RUNS);
  step(`cold init ${row.name} (${row.bundleKb} KB) vs floor ${floor.key} (${row.floor!.kb} KB), ${runs} runs each`);
  row.cold = await measureColdInit(b.outfile, floor.outfile, runs);
  spawns += 2 * (runs + 1);
}
phaseDone('coldInit');

step('starting DynamoDB Local');
let harness: Harness | undefined;
sinkStdout();
try {
  harness = await startHarness();
  const h = harness;
  step(`tenant and owner: ${h.identityNote}`);
  const seeded = await seed(h);
  step(
    `seeded ${seeded.created.join(', ') || 'nothing'}${seeded.failed.length ? `; seeding FAILED for ${seeded.failed.join(', ')}` : ''}`,
  );

  phaseDone('setup');
  step('read routes: DynamoDB requests and capacity');
  const reads = await measureReads(h, fns);
  phaseDone('reads');

  // The cold first answer of every API function: rounds of fresh processes, function and floor,
  // shrinking (not below MIN_ANSWER_RUNS) so the phase fits its budget.
  const apiRows = rows.filter((r) => r.exists && r.kind === 'api');
  const answerStart = performance.now();
  let answerSpawns = 0;
  const answers = await measureColdAnswers(
    h,
    apiRows.map((r) => ({ name: r.name, outfile: bundles.get(r.name)!.outfile })),
    reads,
    (i) => {
      const runs = runsWithinBudget(
        answerStart,
        answerSpawns,
        ANSWER_BUDGET_SECONDS,
        apiRows.length - i,
        MIN_ANSWER_RUNS,
        ANSWER_RUNS,
      );
      answerSpawns += 2 * (runs + 1);
      return runs;
    },
    step,
  );
  for (const row of apiRows) {
    const a = answers.get(row.name);
    if (a && 'ratio' in a) {
      row.answer = a;
      row.answerPass = a.ratio <= COLD_ANSWER_TARGET;
    } else if (a) row.note = a.note;
  }
  phaseDone('coldAnswer');

  for (const row of rows.filter((r) => r.exists && r.kind !== 'worker')) {
    const candidates = reads.filter((r) => r.group === row.name && r.request && r.requests !== null);
    const pick =
      row.kind === 'fallback'
        ? { request: { method: 'GET', path: '/api/bench-no-such-route' } }
        : (['get-by-id', 'list', 'other'] as const).map((k) => candidates.find((c) => c.kind === k)).find(Boolean);
    if (!pick?.request) {
      const gets = reads.filter((r) => r.group === row.name);
      row.note = gets.length
        ? `no GET route could be exercised (${gets.map((g) => `${g.routeId}: ${g.note ?? 'failed'}`).join('; ')})`
        : 'no GET route in this function';
      continue;
    }
    step(`warm ${row.name}: ${pick.request.method} ${pick.request.path.split('?')[0]}`);
    h.recorder.label = `warm ${row.name}`;
    try {
      row.warm = await measureWarm(h, fixedRequest(pick.request), WARM_ITERATIONS);
      row.warmPass = row.warm.overheadMs <= WARM_OVERHEAD_TARGET_MS;
    } catch (err) {
      row.note = `warm measurement failed: ${(err as Error).message}`;
    }
  }
  for (const row of rows.filter((r) => r.kind === 'worker')) row.note ??= 'queue worker: no HTTP route';
  phaseDone('warm');

  const warmWrites: WarmWriteRow[] = [];
  for (const w of await writeScenarios(h)) {
    step(`warm write ${w.group}: ${w.routeId}`);
    h.recorder.label = `warm write ${w.routeId}`;
    try {
      const warm = await measureWarm(h, w.scenario, WARM_ITERATIONS);
      warmWrites.push({
        group: w.group,
        routeId: w.routeId,
        warm,
        pass: warm.overheadMs <= WARM_OVERHEAD_TARGET_MS,
        ...(w.note ? { note: w.note } : {}),
      });
    } catch (err) {
      warmWrites.push({
        group: w.group,
        routeId: w.routeId,
        warm: null,
        pass: null,
        note: `failed: ${(err as Error).message}`,
      });
    }
  }
  phaseDone('warmWrites');

  step('list cost at scale: seeding 100 and 10,000 suppliers');
  const scale = await measureScale(h, [100, 10_000], [1, 50], SCALE_ITERATIONS);
  phaseDone('scale');
  step(`seeded in ${scale.seedSeconds.toFixed(1)} s; BCM dashboard at 10 and 1,000 BIAs (20,000 entries)`);
  const dashboardScale = await measureDashboardScale(
    h,
    [
      [10, 2],
      [1000, 20],
    ],
    SCALE_ITERATIONS,
  );
  phaseDone('dashboardScale');
  step(`seeded in ${dashboardScale.seedSeconds.toFixed(1)} s; authentication`);
  const auth = await measureAuth(h);
  phaseDone('auth');
  step('AI knowledge: indexing throughput and retrieve at 1,000 and 10,000 chunks');
  const knowledge = await measureKnowledge(h);
  phaseDone('knowledge');
  step('AI conversations: a widget message beyond its agent turn');
  const conversations = await measureConversations(h);
  phaseDone('conversations');
  step('AI LLM gateway: its own cost per call and on the first streamed byte');
  const gateway = await measureGateway(h);
  phaseDone('gateway');
  step('AI LLM gateway at the HTTP edge: the local server vs its upstream, and the peer gateway');
  const gatewayEdge = await measureGatewayEdge(step);
  phaseDone('gatewayEdge');
  step("AI connector: the inbound webhooks' 200 per platform, through the local server");
  const webhooks = await measureWebhooks(h);
  phaseDone('webhooks');

  const partial = {
    generatedAt: new Date().toISOString(),
    durationSeconds: round((performance.now() - started) / 1000, 1),
    phases,
    machine: {
      node: process.version,
      platform: platform(),
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
      loadAverageStart: loadAverageStart.map((l) => round(l, 2)),
      loadAverageEnd: loadavg().map((l) => round(l, 2)),
      priority,
    },
    settings: {
      coldRuns: COLD_RUNS,
      coldBudgetSeconds: COLD_BUDGET_SECONDS,
      answerRuns: ANSWER_RUNS,
      answerBudgetSeconds: ANSWER_BUDGET_SECONDS,
      warmIterations: WARM_ITERATIONS,
      scaleIterations: SCALE_ITERATIONS,
    },
    setup: { identity: h.identityNote, seeded: seeded.created, seedFailed: seeded.failed },
    functions: rows,
    warmWrites,
    reads,
    scale,
    dashboardScale,
    auth,
    knowledge,
    conversations,
    gateway,
    gatewayEdge,
    webhooks,
    scan: { issued: h.recorder.scans.length > 0, where: [...new Set(h.recorder.scans)] },
  };
  const targets = targetRows(partial);
  const results: Results = {
    ...partial,
    targets,
    summary: { passed: targets.filter((t) => t.pass).length, missed: targets.filter((t) => !t.pass).length },
  };
  const json = JSON.stringify(results, roundNumbers, 2);
  await writeFile(join(ROOT, 'bench', 'results.json'), `${json}\n`);
  await writeFile(join(OUT_DIR, 'results.md'), `${formatMarkdown(results)}\n`);
  print(formatText(results));
  // From the rounded figures the file holds, so `npm run bench:docs` writes the same later.
  const docs = await writeDocs(JSON.parse(json) as Results);
  print(
    `\nWrote ${rel(join(ROOT, 'bench', 'results.json'))}, ${rel(join(OUT_DIR, 'results.md'))}${docs.length ? ` and the generated sections of ${docs.join(', ')}` : ''} in ${elapsed()}.`,
  );
  if (results.scan.issued) {
    print(`FAILED: a Scan was issued (${results.scan.where.join(', ')}).`);
    process.exitCode = 1;
  }
} finally {
  await harness?.stop();
  restoreStdout();
}

/** Rounds to 3 decimals and leaves out the requests' tokens and keys (throwaway, but noise in the file). */
function roundNumbers(key: string, value: unknown) {
  if (key === 'token' || key === 'headers') return undefined;
  return typeof value === 'number' && !Number.isInteger(value) ? round(value, 3) : value;
}
