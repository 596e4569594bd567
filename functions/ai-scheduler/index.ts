import { queueDueProactiveMessages } from '#areas/connector/proactive.ts';
import { expireOverdueActions } from '#areas/conversations/actions.ts';
import { closeIdleConversations } from '#areas/conversations/lifecycle.ts';
import { releaseExpiredReservations } from '#areas/llm-gateway/reservations.ts';
import { failStuckDocuments } from '#areas/knowledge/stuck.ts';
import { runDueSources } from '#areas/knowledge/sources/schedule.ts';
import { logger } from '#shared/runtime/logger.ts';

/**
 * The AI runtime's time-driven work (docs/architecture.md, "The scheduler"), every minute (reservations,
 * stuck documents, knowledge sources due or stuck, idle conversations, proactive messages due): each job
 * finds its due records on a gsi2 partition by time (no Scan) and is independent of the others, so
 * one failing still lets the rest run; a job that fails is retried by the next minute.
 */
export const SCHEDULED_JOBS: Record<string, (now: number) => Promise<number>> = {
  releaseExpiredReservations: (now) => releaseExpiredReservations(now),
  failStuckDocuments: (now) => failStuckDocuments(now),
  runDueSources: (now) => runDueSources(now),
  closeIdleConversations: (now) => closeIdleConversations(now),
  queueDueProactiveMessages: (now) => queueDueProactiveMessages(now),
  expireOverdueActions: (now) => expireOverdueActions(now),
};

export async function runScheduledJobs(now = Date.now()): Promise<Record<string, number | 'failed'>> {
  const out: Record<string, number | 'failed'> = {};
  await Promise.all(
    Object.entries(SCHEDULED_JOBS).map(async ([name, job]) => {
      try {
        out[name] = await job(now);
      } catch (error) {
        out[name] = 'failed';
        logger.error('scheduled job failed', { job: name, error: error as Error });
      }
    }),
  );
  return out;
}

/** Invoked every minute by an EventBridge schedule; a failed job is logged (and alarmed) and retried next minute. */
export const handler = async () => {
  const result = await runScheduledJobs();
  logger.info('scheduled jobs ran', { result });
  if (Object.values(result).includes('failed')) throw new Error('A scheduled job failed');
  return result;
};
