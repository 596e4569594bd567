import type { Metrics } from '@aws-lambda-powertools/metrics';
import { config } from '#shared/platform/config.ts';
import { logger } from './logger.ts';
import { BUSINESS_METRICS, metricsNamespace, type BusinessMetric } from './metric-catalog.ts';

/**
 * Business metrics as CloudWatch Embedded Metric Format lines (Powertools Metrics): CloudWatch
 * Logs turns them into metrics, so counting costs no API call and no latency.
 *
 *   countMetric('RateLimitRefused', rule.name);   // anywhere in a request or a message handler
 *   await publishMetrics();                       // once at the end (the API middleware and the queue worker do it)
 *
 * Counts are summed per metric and dimension value until published, then written as one EMF line
 * each. Powertools is imported on the first publish that has something to write, so a function
 * whose requests count nothing never evaluates it (cold init stays at the floor).
 */
const pending = new Map<string, { name: BusinessMetric; value: string; count: number }>();
let emitter: Promise<Metrics> | undefined;

export function countMetric(name: BusinessMetric, dimensionValue: string, count = 1): void {
  const value = dimensionValue || 'unknown';
  const key = `${name}\n${value}`;
  const entry = pending.get(key);
  if (entry) entry.count += count;
  else pending.set(key, { name, value, count });
}

async function load(): Promise<Metrics> {
  const { Metrics } = await import('@aws-lambda-powertools/metrics');
  return new Metrics({ namespace: metricsNamespace(config.appName, config.stage), serviceName: config.appName });
}

/** Writes what was counted since the last call and forgets it; never throws (metrics must not fail a request). */
export async function publishMetrics(): Promise<void> {
  if (pending.size === 0) return;
  const entries = [...pending.values()];
  pending.clear();
  try {
    emitter ??= load();
    const metrics = await emitter;
    for (const { name, value, count } of entries) {
      metrics.addDimension(BUSINESS_METRICS[name].dimension, value);
      metrics.addMetric(name, 'Count', count);
      metrics.publishStoredMetrics();
    }
  } catch (error) {
    logger.warn('metrics not published', { error: error as Error });
  }
}
