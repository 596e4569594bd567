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
type Work = () => Promise<unknown>;
const waiting: Work[] = [];

/**
 * Leaves work for after the answer. It is not even started before: building and signing its
 * requests would take the CPU the answer is waiting for.
 */
export function afterAnswer(work: Work): void {
  waiting.push(work);
}

/** Runs every piece of work left (and any it leaves in turn) and waits for it, then writes their metrics. */
export async function finishDeferredWork(): Promise<void> {
  if (waiting.length === 0) return;
  while (waiting.length) {
    const batch = waiting.splice(0);
    await Promise.all(
      batch.map((work) =>
        Promise.resolve()
          .then(work)
          .catch((error) => logger.error('work after the answer failed', { error: error as Error })),
      ),
    );
  }
  await publishMetrics();
}
