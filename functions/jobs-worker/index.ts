import { queueWorker } from '#shared/queue/worker.ts';
import { jobHandlers } from './handlers.ts';

/** Background jobs (vault sync, invoice rendering), once each. */
export const handler = queueWorker('jobs', jobHandlers);
