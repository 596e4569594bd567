import { lambdaContext } from '#local/apigw-event.ts';
import { ddb } from '#shared/platform/aws.ts';
import type { SentCommand } from './ddb-counter.ts';
import { handlerOf, prepare, type BenchRequest, type Harness } from './harness.ts';
import { concurrentGroups, median, percentile } from './stats.ts';

export interface WarmResult {
  routeId: string | null;
  request: string;
  iterations: number;
  /** Median ms through the whole handler (middy stack, auth, validation, handler, serialization). */
  fullMs: number;
  fullP90Ms: number;
  /** Median ms of the same DynamoDB calls sent bare on the same client (same concurrency). */
  bareMs: number;
  /** fullMs - bareMs: the target. */
  overheadMs: number;
  /** Median of the per-iteration differences (a cross-check of the above). */
  pairedOverheadMs: number;
  /** Median ms of each handler call not covered by a DynamoDB call in flight (same timed calls as fullMs). */
  outsideMs: number;
  /** Median ms through the whole handler with DynamoDB answered instantly from recorded outputs: the stack's own CPU time. */
  stackMs: number;
  ddbCalls: string[];
  /** Write scenarios: bare replays refused by a condition (the write already applied) still count as a round trip. */
  bareRefused?: number;
  stackNote?: string;
}

/**
 * What one warm measurement calls. Reads: the same request every time. Writes: a fresh request
 * per call (a new name, a new session to log out, the token pair the previous refresh returned),
 * built outside the timed part; every call must then succeed.
 */
export interface WarmScenario {
  next: () => BenchRequest | Promise<BenchRequest>;
  /** Sees each response outside the timed part (a refresh chain takes its next pair from it). */
  after?: (status: number, json: unknown) => void;
  write?: boolean;
}

export const fixedRequest = (req: BenchRequest): WarmScenario => ({ next: () => req });

const REFUSED = new Set(['ConditionalCheckFailedException', 'TransactionCanceledException']);

/**
 * Warm latency of one request against the bare DynamoDB calls it makes. The calls are captured
 * from one handler run, then replayed in the same order and grouping (concurrent calls together).
 * Handler and bare runs alternate in one loop, the order flipping every iteration.
 */
export async function measureWarm(
  h: Harness,
  scenario: WarmScenario,
  iterations: number,
  warmup = 50,
): Promise<WarmResult> {
  const req = await scenario.next();
  const p = prepare(req);
  const handler = await handlerOf(p.group);
  /** Per timed call: the part of the handler's time during which no DynamoDB call was in flight. */
  const outside: number[] = [];
  let pending: BenchRequest | null = req;
  const full = async () => {
    const current = pending ?? (await scenario.next());
    pending = null;
    const event = prepare(current).event();
    const context = lambdaContext(p.group);
    const first = h.recorder.sends.length;
    const t = performance.now();
    const res = await handler(event, context);
    const ms = performance.now() - t;
    const status = res.statusCode ?? 200;
    if (status >= 500 || (scenario.write && status >= 300))
      throw new Error(`${current.method} ${current.path} answered ${status} ${res.body ?? ''}`.slice(0, 300));
    scenario.after?.(status, res.body ? JSON.parse(res.body) : undefined);
    outside.push(ms - inFlight(h.recorder.sends.slice(first)));
    return ms;
  };

  await full();
  h.recorder.reset();
  await full();
  const groups = concurrentGroups<SentCommand>(h.recorder.sends);
  const client = ddb();
  let bareRefused = 0;
  const send = (command: object) =>
    client.send(command as never).catch((err: Error) => {
      if (!scenario.write || !REFUSED.has(err.name)) throw err;
      bareRefused++;
    });
  const bare = async () => {
    const commands = groups.map((g) => g.map((c) => () => new c.ctor(c.input as never)));
    const t = performance.now();
    for (const group of commands) await Promise.all(group.map((make) => send(make() as object)));
    return performance.now() - t;
  };

  for (let i = 0; i < warmup; i++) {
    await full();
    await bare();
  }
  outside.length = 0;
  bareRefused = 0;
  const fullTimes: number[] = [];
  const bareTimes: number[] = [];
  const diffs: number[] = [];
  for (let i = 0; i < iterations; i++) {
    let f: number;
    let b: number;
    if (i % 2 === 0) {
      f = await full();
      b = await bare();
    } else {
      b = await bare();
      f = await full();
    }
    fullTimes.push(f);
    bareTimes.push(b);
    diffs.push(f - b);
  }
  const fullMs = median(fullTimes);
  const bareMs = median(bareTimes);
  const outsideMs = median(outside);
  // A write whose calls vary between runs cannot be answered from one recording: its stack-only
  // figure is left out (NaN) rather than failing the whole measurement.
  let stackNote: string | undefined;
  const stackMs = await measureStackOnly(full, groups.flat(), iterations, warmup).catch((err: Error) => {
    if (!scenario.write) throw err;
    stackNote = `stack only not measured: ${err.message}`;
    return Number.NaN;
  });
  return {
    routeId: p.route?.id ?? null,
    request: `${req.method} ${req.path}`,
    iterations,
    fullMs,
    fullP90Ms: percentile(fullTimes, 90),
    bareMs,
    overheadMs: fullMs - bareMs,
    pairedOverheadMs: median(diffs),
    outsideMs,
    stackMs,
    ddbCalls: groups.map((g) => g.map((c) => c.ctor.name.replace(/Command$/, '')).join('+')),
    ...(scenario.write ? { bareRefused } : {}),
    ...(stackNote ? { stackNote } : {}),
  };
}

/** The handler with a stand-in client that answers each call with the output recorded for it. */
async function measureStackOnly(
  full: () => Promise<number>,
  calls: readonly SentCommand[],
  iterations: number,
  warmup: number,
) {
  const real = ddb();
  let next = 0;
  const stub = {
    send: async (command: object) => {
      const call = calls[next++ % calls.length]!;
      if (command.constructor !== call.ctor)
        throw new Error(`Expected ${call.ctor.name}, got ${command.constructor.name}`);
      return call.output;
    },
  };
  ddb.install(stub as unknown as ReturnType<typeof ddb>);
  try {
    for (let i = 0; i < warmup; i++) await full();
    const times: number[] = [];
    for (let i = 0; i < iterations; i++) times.push(await full());
    return median(times);
  } finally {
    ddb.install(real);
  }
}

/** Wall time covered by at least one of the calls (the union of their intervals). */
function inFlight(calls: readonly SentCommand[]): number {
  let covered = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const c of [...calls].sort((a, b) => a.startedAt - b.startedAt)) {
    const start = Math.max(c.startedAt, end);
    if (c.endedAt > start) covered += c.endedAt - start;
    end = Math.max(end, c.endedAt);
  }
  return covered;
}
