import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { tenantRoutes } from '#areas/identity/routes/tenants.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { inviteToTenant } from '#areas/identity/tenants/invite.ts';
import {
  changeTenantStatus,
  createTenant,
  listTenants,
  tenantDetail,
  updateTenant,
} from '#areas/identity/tenants/manage-tenants.ts';

export const handler = apiHandler(
  tenantRoutes,
  {
    'tenants.list': async ({ principal, query }) => await listTenants(principal, query),
    'tenants.get': async ({ tenantId }) => await tenantDetail(tenantId),
    'tenants.create': async ({ principal, body }) => await createTenant(body, principal),
    'tenants.update': async ({ principal, tenantId, body }) => await updateTenant(principal, tenantId, body),
    'tenants.status': async ({ principal, tenantId, body }) =>
      await changeTenantStatus(principal, tenantId, body.newStatus),
    'tenants.invite': async ({ principal, tenantId, body }) => await inviteToTenant(principal, tenantId, body),
  },
  { tenants: tenantDirectory },
);
