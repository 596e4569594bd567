import type { MessageHandler } from '#shared/queue/worker.ts';
import { ENVIRONMENT_PATTERN } from '#areas/vault/rules.ts';
import { runVaultSync, SYNC_JOB, type VaultSyncPayload } from '#areas/vault/sync.ts';

/** Job type -> handler. Each area registers its jobs here. */
export const jobHandlers: Record<string, MessageHandler> = {
  [SYNC_JOB]: async (payload) => {
    const job = payload as unknown as VaultSyncPayload;
    if (typeof job.jobId !== 'string' || !ENVIRONMENT_PATTERN.test(String(job.environment))) {
      throw new Error('Malformed vault.sync payload');
    }
    await runVaultSync(job);
  },
};
