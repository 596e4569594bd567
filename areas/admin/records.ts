import { auditLog } from '#shared/data/audit.ts';
import { integrationEvents } from '#shared/data/integration-events.ts';
import type { Item } from '#shared/data/keys.ts';

/**
 * The admin area's records: the platform's audit log and integration events, written by every area
 * (`shared/data/audit.ts`, `shared/data/integration-events.ts`) and read here, newest first.
 */
export const adminKeys = { auditLog, integrationEvents };

export interface AuditLogEntry {
  id: string;
  entityType: string;
  entityId: string;
  action: string;
  changes: string | null;
  userId: string | null;
  userName: string;
  tenantId: string | null;
  createdAt: string;
}

export const toAuditLogEntry = (item: Item): AuditLogEntry => ({
  id: item.id as string,
  entityType: item.entityType as string,
  entityId: item.entityId as string,
  action: item.action as string,
  changes: (item.changes as string | null) ?? null,
  userId: (item.userId as string | null) ?? null,
  userName: (item.userName as string | null) ?? 'system',
  tenantId: (item.tenantId as string | null) ?? null,
  createdAt: item.createdAt as string,
});

export interface IntegrationEvent {
  id: string;
  eventType: string;
  data: string | null;
  status: string;
  createdAt: string;
}

export const toIntegrationEvent = (item: Item): IntegrationEvent => ({
  id: item.id as string,
  eventType: item.eventType as string,
  data: item.data == null ? null : typeof item.data === 'string' ? item.data : JSON.stringify(item.data),
  status: String(item.status ?? 'pending'),
  createdAt: item.createdAt as string,
});
