/** Pure helpers of the benchmark: statistics, SDK package detection, floor entries, call grouping. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile, p in [0, 100]. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export const ratio = (value: number, floor: number) => (floor > 0 ? value / floor : Number.NaN);

export const round = (value: number, digits = 2) => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};

/**
 * AWS SDK packages that count as "clients" for the cold-init floor: every `@aws-sdk/client-*`
 * plus the DynamoDB document client layer. Input paths come from esbuild's metafile.
 */
export function sdkClientPackages(inputPaths: Iterable<string>): string[] {
  const found = new Set<string>();
  for (const path of inputPaths) {
    const match = /(?:^|\/)node_modules\/@aws-sdk\/(client-[a-z0-9-]+|lib-dynamodb)\//.exec(path.replace(/\\/g, '/'));
    if (match) found.add(`@aws-sdk/${match[1]}`);
  }
  return [...found].sort();
}

/**
 * When a function's bundle evaluates and constructs an SDK client, as the probe build saw it on
 * import: `constructed` at import, `imported` (evaluated at import, constructed on first use),
 * `deferred` (evaluated and constructed on first use, behind a dynamic import).
 */
export type ClientTiming = 'constructed' | 'imported' | 'deferred';

export interface FloorClient {
  /** Package name, e.g. `@aws-sdk/client-dynamodb`. */
  pkg: string;
  /** The client class the package exports, e.g. `DynamoDBClient`. */
  className: string;
  timing: ClientTiming;
}

/** The client class among a client package's export names (`DynamoDBClient`, `S3Client`, ...). */
export function clientClassName(exportNames: readonly string[]): string | undefined {
  const candidates = exportNames.filter((n) => /^[A-Z][A-Za-z0-9]*Client$/.test(n) && n !== 'DynamoDBDocumentClient');
  return candidates.sort((a, b) => a.length - b.length)[0];
}

/** What the probe recorded: packages evaluated at import, and client packages constructed at import. */
export interface ProbeReport {
  evaluated: string[];
  constructed: string[];
}

export function clientTiming(pkg: string, probe: ProbeReport): ClientTiming {
  if (probe.constructed.includes(pkg)) return 'constructed';
  return probe.evaluated.includes(pkg) ? 'imported' : 'deferred';
}

/** A short name for a floor: the clients it imports (the ones the function evaluates at import). */
export function floorKey(clients: readonly FloorClient[]): string {
  const loaded = clients.filter((c) => c.timing !== 'deferred');
  return loaded.length ? loaded.map((c) => c.pkg.replace('@aws-sdk/client-', '')).join('+') : 'empty';
}

/**
 * Source of a floor entry: the least any function making the same AWS calls must load. It imports
 * at top level each SDK client the function evaluates at import and constructs them all in its
 * handler. Nothing else: not lib-dynamodb (a convenience layer the project chose, so its cost is
 * the function's), not the clients the function loads on first use (it does not pay for them at
 * import either), and no construction at import (where the function constructs at import, that
 * cost is its own). See docs/bench.md, "Cold init".
 */
export function floorEntrySource(clients: readonly FloorClient[]): string {
  const loaded = clients.filter((c) => c.timing !== 'deferred');
  const lines = [
    ...loaded.map((c, i) => `import { ${c.className} as C${i} } from '${c.pkg}';`),
    'export const clients = [];',
    'export const handler = async () => {',
    `  if (!clients.length) clients.push(${loaded.map((_, i) => `new C${i}({})`).join(', ')});`,
    '  return clients.length;',
    '};',
  ];
  return `${lines.join('\n')}\n`;
}

export interface TimedCall {
  startedAt: number;
  endedAt: number;
}

/**
 * Splits calls (ordered by start) into groups that ran concurrently: a call joins the current
 * group when it started before every call of that group had finished.
 */
export function concurrentGroups<T extends TimedCall>(calls: readonly T[]): T[][] {
  const groups: T[][] = [];
  let current: T[] = [];
  let groupEnd = Number.NEGATIVE_INFINITY;
  for (const call of [...calls].sort((a, b) => a.startedAt - b.startedAt)) {
    if (current.length && call.startedAt >= groupEnd) {
      groups.push(current);
      current = [];
      groupEnd = Number.NEGATIVE_INFINITY;
    }
    current.push(call);
    groupEnd = Math.max(groupEnd, call.endedAt);
  }
  if (current.length) groups.push(current);
  return groups;
}

export type RouteKind = 'get-by-id' | 'list' | 'other';

/**
 * List: the query takes `page`, or the response is a collection (an array, or an object with an
 * `items` array); GET by id: otherwise, when the path ends in a parameter.
 */
export function readRouteKind(path: string, queryKeys: readonly string[], returnsCollection = false): RouteKind {
  if (queryKeys.includes('page') || returnsCollection) return 'list';
  if (/\/\{[^}]+\}$/.test(path)) return 'get-by-id';
  return 'other';
}

/** Splits items into chunks of `size` (BatchWriteItem takes 25). */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Runs tasks with at most `limit` in flight. */
export async function pool<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}
