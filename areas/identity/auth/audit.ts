import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { auditPut, countAudit } from '#shared/data/audit.ts';
import type { TransactItem } from '#shared/data/transact.ts';
import { ddb } from '#shared/platform/aws.ts';

/**
 * Audit entries of sign-in, logout, password reset and change: entityType `User`, the user's id
 * (or `unknown` for an address with no account), an action such as `login.failed`, and details
 * (method, reason, IP) without any secret.
 */
export interface AuthEvent {
  action: string;
  user: { id: string; email: string; tenantId: string | null } | null;
  email?: string;
  details: Record<string, unknown>;
}

export function authAuditItem(event: AuthEvent): TransactItem {
  const email = event.user?.email ?? event.email ?? '';
  return auditPut({
    entityType: 'User',
    entityId: event.user?.id ?? 'unknown',
    action: event.action,
    changes: { ...event.details, ...(event.user ? {} : { email }) },
    actor: event.user ? { userId: event.user.id, email: event.user.email } : null,
    tenantId: event.user?.tenantId ?? null,
  });
}

/** Writes one entry on its own (failures and events not tied to another write). */
export async function recordAuth(event: AuthEvent) {
  const item = authAuditItem(event);
  await ddb().send(new PutCommand(item.Put!));
  await countAudit(1);
}
