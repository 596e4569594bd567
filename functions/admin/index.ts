import { adminRoutes } from '#shared/routes/admin.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { listAuditLogs } from './audit-logs.ts';
import { listIntegrationEvents } from './integration-events.ts';

export const handler = apiHandler(adminRoutes, {
  'admin.auditLogs': async ({ query }) => await listAuditLogs(query),
  'admin.integrationEvents': async ({ query }) => await listIntegrationEvents(query),
});
