import { adminRoutes } from '#areas/admin/routes.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { listAuditLogs } from '#areas/admin/audit-logs.ts';
import { listIntegrationEvents } from '#areas/admin/integration-events.ts';

export const handler = apiHandler(adminRoutes, {
  'admin.auditLogs': async ({ query }) => await listAuditLogs(query),
  'admin.integrationEvents': async ({ query }) => await listIntegrationEvents(query),
});
