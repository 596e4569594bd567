import { runVaultSync, SYNC_JOB } from '#areas/vault/sync.ts';
import { handles } from '#shared/queue/messages.ts';
import { queueWorker } from '#shared/queue/worker.ts';

/** Background jobs (vault sync), once each; each area's job kinds are listed here. */
export const handler = queueWorker('jobs', [handles(SYNC_JOB, runVaultSync)]);
