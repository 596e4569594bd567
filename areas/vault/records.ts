import { writeItem } from '#shared/data/write-one.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditInput } from '#shared/data/audit.ts';
import { commitChange, orConflict, putNew, updateItem, type Change } from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { countIntegrationEvents, integrationEventPut } from '#shared/data/integration-events.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';

/**
 * DynamoDB records the vault writes: audit entries, background jobs (the sync job's status),
 * integration events, and the per-source window counting refused requests. The secrets
 * themselves live in SSM (store.ts, tenant-secrets.ts), never in the table.
 */

export const vaultKeys = {
  /** A background job's status, read by nobody but its own worker and the tests (TTL-expired). */
  job: (jobId: string) => ({ pk: `JOB#${jobId}`, sk: 'ITEM' }),
};

/** Callers that present only the internal key have no user; audit entries say so in `changes`. */
const auditOf = (input: Omit<AuditInput, 'tenantId'>): Change => ({ ...input, tenantId: null });

/** An audit entry on its own (the change it records is not in the table: an SSM write, a refusal). */
export async function recordAudit(input: Omit<AuditInput, 'tenantId'>) {
  await commitChange([], auditOf(input));
}

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed';
type JobItem = {
  pk: string;
  sk: string;
  id: string;
  type: string;
  status: JobStatus;
  createdAt: string;
  updatedAt: string;
  ttl: number;
} & Record<string, unknown>;

const JOB_TTL_SECONDS = 30 * 24 * 3600;

/** Creates the job (queued), with the audit entry of the request that queued it when given. */
export async function createJob(
  jobId: string,
  type: string,
  fields: Record<string, unknown>,
  audit?: Omit<AuditInput, 'tenantId'>,
) {
  const now = new Date().toISOString();
  const item: JobItem = {
    ...vaultKeys.job(jobId),
    id: jobId,
    type,
    status: 'queued',
    ...fields,
    createdAt: now,
    updatedAt: now,
    ttl: Math.floor(Date.parse(now) / 1000) + JOB_TTL_SECONDS,
  };
  await commitChange([orConflict(putNew(item), 'This job exists already')], audit ? auditOf(audit) : null, { now });
}

const jobUpdate = (jobId: string, status: JobStatus, fields: Record<string, unknown>) =>
  updateItem(vaultKeys.job(jobId), { status, updatedAt: new Date().toISOString(), ...fields });

export async function updateJob(jobId: string, status: JobStatus, fields: Record<string, unknown> = {}) {
  await writeItem(jobUpdate(jobId, status, fields));
}

/**
 * A job's last status with the integration event that reports it (and an audit entry when given),
 * in one transaction: the event exists exactly when the job shows the outcome.
 */
export async function finishJob(
  jobId: string,
  status: 'completed' | 'failed',
  fields: Record<string, unknown>,
  event: { type: string; data: Record<string, unknown> },
  audit?: Omit<AuditInput, 'tenantId'>,
) {
  await commitChange(
    [jobUpdate(jobId, status, fields), integrationEventPut(event.type, event.data)],
    audit ? auditOf(audit) : null,
  );
  await countIntegrationEvents(1);
}

/** Refused vault requests are counted per source in windows of this length. */
export const REFUSAL_WINDOW_SECONDS = 3600;

/**
 * Counts one refused request of `source` in the current window (one atomic ADD on a TTL-expired
 * rate-limit item): how many the source has had in this window, this one included.
 */
export async function countRefusal(source: string, now = Date.now()): Promise<{ count: number; windowStart: string }> {
  const windowMs = REFUSAL_WINDOW_SECONDS * 1000;
  const start = Math.floor(now / windowMs) * windowMs;
  const out = await ddb().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keys.rateLimit('vault-refusals', source, start),
      UpdateExpression: 'ADD hits :one SET #ttl = if_not_exists(#ttl, :ttl)',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':ttl': Math.ceil((start + windowMs) / 1000) + 60 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return { count: Number(out.Attributes?.hits ?? 1), windowStart: new Date(start).toISOString() };
}
