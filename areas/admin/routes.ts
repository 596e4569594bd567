import * as z from 'zod/mini';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { pageOf, paging } from '#shared/routes/schemas.ts';

const auditLogSchema = once(() =>
  z.object({
    id: z.string(),
    entityType: z.string(),
    entityId: z.string(),
    action: z.string(),
    changes: z.nullable(z.string()),
    userId: z.nullable(z.string()),
    userName: z.string(),
    tenantId: z.nullable(z.string()),
    createdAt: z.string(),
  }),
);

const integrationEventSchema = once(() =>
  z.object({
    id: z.string(),
    eventType: z.string(),
    data: z.nullable(z.string()),
    status: z.string(),
    createdAt: z.string(),
  }),
);

/** A calendar day (`2026-01-31`, the whole UTC day) or an instant (ISO 8601 with offset). */
const dateOrDateTime = () => z.optional(z.union([z.iso.date(), z.iso.datetime({ offset: true })]));

const systemAdmin = { kind: 'bearer', roles: ['SystemAdmin'] } as const;

export const adminRoutes = defineRoutes([
  {
    id: 'admin.auditLogs',
    method: 'GET',
    path: '/api/admin/audit-logs',
    group: 'admin',
    auth: systemAdmin,
    summary:
      'Audit log entries, newest first; `startDate`/`endDate` bound createdAt inclusively (a date means the whole ' +
      'UTC day); `entityType` matches exactly',
    scope: scope.platform,
    status: 200,
    schemas: () => ({
      query: z.object({
        startDate: dateOrDateTime(),
        endDate: dateOrDateTime(),
        entityType: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(64))),
        ...paging(),
      }),
      response: pageOf(auditLogSchema()),
    }),
  },
  {
    id: 'admin.integrationEvents',
    method: 'GET',
    path: '/api/admin/integration-events',
    group: 'admin',
    auth: systemAdmin,
    summary: 'Integration events, newest first',
    scope: scope.platform,
    status: 200,
    schemas: () => ({
      query: z.object({ ...paging() }),
      response: pageOf(integrationEventSchema()),
    }),
  },
]);
