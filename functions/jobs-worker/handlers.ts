import { runVaultSync, SYNC_JOB } from '#areas/vault/sync.ts';
import { handles, type MessageRoute } from '#shared/queue/messages.ts';

/** The jobs this worker runs; each area registers its kinds here. */
export const jobRoutes: MessageRoute[] = [handles(SYNC_JOB, runVaultSync)];
