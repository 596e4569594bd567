import * as z from 'zod/mini';
import { messageKind } from '#shared/queue/messages.ts';
import { logger } from '#shared/runtime/logger.ts';
import { finishJob, updateJob } from './records.ts';
import {
  childName,
  environmentPattern,
  environmentPath,
  isValidKey,
  sourcePath,
  valueProblem,
  type ValueProblem,
} from './rules.ts';
import { listParameters, writeSecret } from './store.ts';

/**
 * "Synchronization from the environment": the deployment provides the environment's secrets as
 * parameters under `/<app>/<stage>/vault-sources/{environment}/{key}`; the job copies each into
 * the vault unless the vault's copy is at least as new (see planSync).
 */
export const SYNC_JOB = messageKind('jobs', 'vault.sync', () =>
  z.object({
    jobId: z.string(),
    environment: z.string().check(z.regex(environmentPattern())),
    requestedBy: z.nullable(z.object({ userId: z.string(), email: z.string() })),
  }),
);

export type VaultSyncPayload = z.output<ReturnType<typeof SYNC_JOB.schema>>;

interface Parameter {
  name: string;
  value: string;
  lastModified?: string;
}

export type SyncDecision =
  | { key: string; action: 'import'; value: string }
  | { key: string; action: 'skip'; reason: 'newer-in-vault' | 'unchanged' }
  | { key: string; action: 'fail'; reason: 'invalid-key' | ValueProblem };

/**
 * What to do with each source parameter, as a pure function of the two listings. A vault value
 * (live or deleted) last modified at or after the source parameter is newer and is kept; an
 * identical value is not written again; anything else is imported.
 */
export function planSync(environment: string, sources: Parameter[], current: Parameter[]): SyncDecision[] {
  const vaultPath = environmentPath(environment);
  const inVault = new Map<string, Parameter>();
  for (const p of current) {
    const key = childName(vaultPath, p.name);
    if (key) inVault.set(key, p);
  }
  const from = sourcePath(environment);
  return sources.map((source): SyncDecision => {
    const key = childName(from, source.name);
    // Nested names (a/b) and names outside the pattern cannot be vault keys.
    if (!key || !isValidKey(key))
      return { key: source.name.slice(from.length + 1), action: 'fail', reason: 'invalid-key' };
    const problem = valueProblem(source.value);
    if (problem) return { key, action: 'fail', reason: problem };
    const existing = inVault.get(key);
    if (existing) {
      // ISO-8601 UTC timestamps order lexically; a missing time counts as oldest.
      if ((existing.lastModified ?? '') >= (source.lastModified ?? ''))
        return { key, action: 'skip', reason: 'newer-in-vault' };
      if (existing.value === source.value) return { key, action: 'skip', reason: 'unchanged' };
    }
    return { key, action: 'import', value: source.value };
  });
}

const MAX_REPORTED_FAILURES = 20;

export interface SyncOutcome {
  imported: number;
  skipped: number;
  failed: number;
  failures: { key: string; reason: string }[];
}

/** Imports one at a time: SSM write limits are low, and the job is not latency-bound. */
async function apply(environment: string, plan: SyncDecision[]): Promise<SyncOutcome> {
  const outcome: SyncOutcome = { imported: 0, skipped: 0, failed: 0, failures: [] };
  const fail = (key: string, reason: string) => {
    outcome.failed++;
    if (outcome.failures.length < MAX_REPORTED_FAILURES) outcome.failures.push({ key, reason });
  };
  for (const decision of plan) {
    if (decision.action === 'skip') outcome.skipped++;
    else if (decision.action === 'fail') fail(decision.key, decision.reason);
    else {
      try {
        await writeSecret(environment, decision.key, decision.value);
        outcome.imported++;
      } catch (err) {
        fail(decision.key, (err as Error).name || 'write-failed');
      }
    }
  }
  return outcome;
}

/**
 * The queued job. Per-key problems are counted and the job completes; if either listing fails,
 * the job is marked failed and the error is rethrown so the queue retries (then dead-letters).
 */
export async function runVaultSync({ jobId, environment, requestedBy }: VaultSyncPayload): Promise<SyncOutcome> {
  await updateJob(jobId, 'running', { startedAt: new Date().toISOString() });
  let outcome: SyncOutcome;
  try {
    const [sources, current] = await Promise.all([
      listParameters(sourcePath(environment)),
      listParameters(environmentPath(environment)),
    ]);
    outcome = await apply(environment, planSync(environment, sources, current));
  } catch (err) {
    const error = (err as Error).name || 'Error';
    logger.error('vault sync failed', { jobId, environment, errorName: error });
    await finishJob(
      jobId,
      'failed',
      { error, finishedAt: new Date().toISOString() },
      { type: 'vault.sync.failed', data: { jobId, environment, error } },
    );
    throw err;
  }
  const { imported, skipped, failed } = outcome;
  await finishJob(
    jobId,
    'completed',
    { result: outcome, finishedAt: new Date().toISOString() },
    { type: 'vault.sync.completed', data: { jobId, environment, ...outcome } },
    {
      entityType: 'SecretEnvironment',
      entityId: environment,
      action: 'sync',
      changes: { jobId, imported, skipped, failed },
      actor: requestedBy,
    },
  );
  return outcome;
}
