import { logger } from './logger.ts';
import { publishMetrics } from './metrics.ts';

/**
 * Work the invocation must finish but the caller need not wait for: a model call's settle and usage
 * record. The streaming front door runs it after the answer's last byte (a Lambda in response-stream
 * mode keeps running after its stream ends, until the handler returns); the buffered handler before
 * it returns (API Gateway sends nothing before that anyway). Lambda runs one invocation per instance
 * at a time, so one process-wide set is the invocation's; locally a request may also wait for
 * another's work, which only delays it.
 */
const pending = new Set<Promise<unknown>>();

export function afterAnswer(work: Promise<unknown>): void {
  const tracked: Promise<unknown> = work
    .catch((error) => logger.error('work after the answer failed', { error: error as Error }))
    .finally(() => pending.delete(tracked));
  pending.add(tracked);
}

/** Waits for every deferred piece of work (and any it deferred in turn), then writes their metrics. */
export async function finishDeferredWork(): Promise<void> {
  if (pending.size === 0) return;
  while (pending.size) await Promise.all([...pending]);
  await publishMetrics();
}
