import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '#shared/auth/access-token.ts';
import { auditPut, countAudit, type AuditInput } from '#shared/data/audit.ts';
import { keys } from '#shared/data/keys.ts';
import { countIntegrationEvents, integrationEventPut } from '#areas/identity/integration-events.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';

/** DynamoDB records the vault writes: audit entries, the sync job's status, integration events. */

export type Actor = Pick<Principal, 'userId' | 'email'> | null;

/** Callers that present only the internal key have no user; audit entries say so in `changes`. */
export async function recordAudit(input: Omit<AuditInput, 'tenantId'>) {
  const { Put } = auditPut({ ...input, tenantId: null });
  await ddb().send(new PutCommand(Put!));
  await countAudit(1);
}

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed';

const JOB_TTL_SECONDS = 30 * 24 * 3600;

export async function createJob(jobId: string, type: string, fields: Record<string, unknown>) {
  const now = new Date().toISOString();
  await ddb().send(
    new PutCommand({
      TableName: config.tableName,
      Item: {
        ...keys.job(jobId),
        id: jobId,
        type,
        status: 'queued' satisfies JobStatus,
        ...fields,
        createdAt: now,
        updatedAt: now,
        ttl: Math.floor(Date.now() / 1000) + JOB_TTL_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function updateJob(jobId: string, status: JobStatus, fields: Record<string, unknown> = {}) {
  const set: Record<string, unknown> = { status, updatedAt: new Date().toISOString(), ...fields };
  const names = Object.keys(set);
  await ddb().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keys.job(jobId),
      UpdateExpression: `SET ${names.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#f${i}`, n])),
      ExpressionAttributeValues: Object.fromEntries(names.map((n, i) => [`:v${i}`, set[n]])),
    }),
  );
}

/** An integration event (GET /api/admin/integration-events), through the identity area's helper. */
export async function recordIntegrationEvent(eventType: string, data: Record<string, unknown>) {
  const { Put } = integrationEventPut(eventType, data);
  await ddb().send(new PutCommand(Put!));
  await countIntegrationEvents(1);
  return Put!.Item!.id as string;
}
