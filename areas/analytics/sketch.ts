/**
 * Latency percentiles from a fixed logarithmic histogram (the DDSketch bucket scheme): bucket i
 * holds values in (γ^(i-1), γ^i], and reporting 2γ^i/(γ+1) for it is within α of every value in
 * it. Counts per bucket add up across events, days and Lambda instances, so the write path keeps
 * them as plain counters and the read path merges days without seeing a raw event.
 */
const RELATIVE_ACCURACY = 0.005;
const GAMMA = (1 + RELATIVE_ACCURACY) / (1 - RELATIVE_ACCURACY);
const LN_GAMMA = Math.log(GAMMA);
/** Below this (including 0) a latency counts as zero. */
const MIN_VALUE = 0.001;
const ZERO = 'hz';

/** The attribute holding a latency's bucket count on an aggregate item. */
export function bucketAttribute(latencyMs: number): string {
  if (!(latencyMs >= MIN_VALUE)) return ZERO;
  return `h${Math.ceil(Math.log(latencyMs) / LN_GAMMA)}`;
}

const isBucket = (attr: string) => attr === ZERO || /^h-?\d+$/.test(attr);
const bucketIndex = (attr: string) => (attr === ZERO ? Number.NEGATIVE_INFINITY : Number(attr.slice(1)));
const bucketValue = (index: number) => (index === Number.NEGATIVE_INFINITY ? 0 : (2 * GAMMA ** index) / (GAMMA + 1));

export type Histogram = Map<string, number>;

/** Adds the bucket counts found on an aggregate item to a histogram. */
export function mergeBuckets(into: Histogram, item: Record<string, unknown>): Histogram {
  for (const [attr, value] of Object.entries(item)) {
    if (isBucket(attr) && typeof value === 'number') into.set(attr, (into.get(attr) ?? 0) + value);
  }
  return into;
}

/** Nearest-rank quantile (the value at rank ceil(q·n)); null for an empty histogram. */
export function quantile(histogram: Histogram, q: number): number | null {
  const buckets = [...histogram]
    .map(([attr, count]) => [bucketIndex(attr), count] as const)
    .sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((n, [, c]) => n + c, 0);
  if (total === 0) return null;
  // The epsilon keeps 0.95 × 60 (57.000…01 in binary) at rank 57.
  const rank = Math.max(1, Math.ceil(q * total - 1e-9));
  let seen = 0;
  for (const [index, count] of buckets) {
    seen += count;
    if (seen >= rank) return bucketValue(index);
  }
  return bucketValue(buckets.at(-1)![0]);
}
