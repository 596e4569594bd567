import type { Principal } from '#shared/auth/access-token.ts';
import { config } from '#shared/platform/config.ts';
import { bumpCounterAfterCommit } from './collection.ts';
import { keys } from './keys.ts';
import type { TransactItem } from './commit.ts';

const SECRET_FIELD = /password|secret|token|hash|code|key|value/i;

/** Changed fields as JSON, with anything secret-looking removed. */
function changesJson(changes: Record<string, unknown> | null): string | null {
  if (!changes) return null;
  const safe = Object.fromEntries(Object.entries(changes).filter(([k]) => !SECRET_FIELD.test(k)));
  return JSON.stringify(safe);
}

/** The platform's audit log, newest first (the admin area lists it). */
export const auditLog = () => keys.platformCollection('AUDIT');

export interface AuditInput {
  entityType: string;
  entityId: string;
  action: string;
  changes: Record<string, unknown> | null;
  actor: Pick<Principal, 'userId' | 'email'> | null;
  tenantId: string | null;
}

/** The audit entry as part of the same transaction as the change it records. */
export function auditPut(input: AuditInput, now = new Date().toISOString()): TransactItem {
  const id = crypto.randomUUID();
  const collection = auditLog();
  return {
    Put: {
      TableName: config.tableName,
      Item: {
        ...keys.platformItem('AUDIT', id),
        ...keys.newestFirst(collection, now, id),
        id,
        entityType: input.entityType,
        entityId: input.entityId,
        action: input.action,
        changes: changesJson(input.changes),
        userId: input.actor?.userId ?? null,
        userName: input.actor?.email ?? 'system',
        tenantId: input.tenantId,
        createdAt: now,
      },
    },
  };
}

/**
 * The audit collection's counter is bumped after the transaction, not inside it: every mutation
 * in the platform writes an entry, and one shared item in every transaction would serialize them.
 */
export const countAudit = (entries: number) => bumpCounterAfterCommit(auditLog(), entries);
