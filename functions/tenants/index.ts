import { tenantRoutes } from '#shared/routes/tenants.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { inviteToTenant } from '#areas/identity/tenants/invitations.ts';
import {
  changeTenantStatus,
  createTenant,
  listTenants,
  tenantForCaller,
  updateTenant,
} from '#areas/identity/tenants/tenants.ts';
import { toTenantDetail } from '#areas/identity/tenants.ts';

export const handler = apiHandler(tenantRoutes, {
  'tenants.list': async ({ principal, query }) => await listTenants(principal!, query),
  'tenants.get': async ({ principal, params }) => toTenantDetail(await tenantForCaller(principal!, params.slug)),
  'tenants.create': async ({ principal, body }) => await createTenant(body, principal!),
  'tenants.update': async ({ principal, params, body }) => await updateTenant(principal!, params.slug, body),
  'tenants.status': async ({ principal, params, body }) =>
    await changeTenantStatus(principal!, params.slug, body.newStatus),
  'tenants.invite': async ({ principal, params, body }) => await inviteToTenant(principal!, params.slug, body),
});
