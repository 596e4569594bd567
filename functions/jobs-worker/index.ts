import { queueWorker } from '#shared/queue/worker.ts';
import { jobRoutes } from './handlers.ts';

/** Background jobs (vault sync), once each. */
export const handler = queueWorker('jobs', jobRoutes);
