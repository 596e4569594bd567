import { ok } from '#shared/http/responses.ts';
import { adminRoutes } from '#shared/routes/admin.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { listAuditLogs } from './audit-logs.ts';
import { listIntegrationEvents } from './integration-events.ts';

export const handler = apiHandler(adminRoutes, {
  'admin.auditLogs': async ({ query }) => ok(await listAuditLogs(query)),
  'admin.integrationEvents': async ({ query }) => ok(await listIntegrationEvents(query)),
});
