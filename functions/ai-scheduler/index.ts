import { logger } from '#shared/runtime/logger.ts';
import { runScheduledJobs } from './jobs.ts';

/** Invoked every minute by an EventBridge schedule; a failed job is logged (and alarmed) and retried next minute. */
export const handler = async () => {
  const result = await runScheduledJobs();
  logger.info('scheduled jobs ran', { result });
  if (Object.values(result).includes('failed')) throw new Error('A scheduled job failed');
  return result;
};
