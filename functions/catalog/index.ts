import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { catalogRoutes } from '#areas/catalog/routes.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { createProductService, listProductServices } from '#areas/catalog/product-services.ts';
import { createSupplier, getSupplier, listSuppliers } from '#areas/catalog/suppliers.ts';

export const handler = apiHandler(
  catalogRoutes,
  {
    'suppliers.list': async ({ tenantId, query }) => await listSuppliers(tenantId, query),
    'suppliers.create': async ({ tenantId, principal, body: { tenantId: _, ...input } }) =>
      await createSupplier(tenantId, input, principal),
    'suppliers.get': async ({ tenantId, params }) => await getSupplier(tenantId, params.supplierId),
    'products.list': async ({ tenantId, query }) => await listProductServices(tenantId, query),
    'products.create': async ({ tenantId, principal, body: { tenantId: _, ...input } }) =>
      await createProductService(tenantId, input, principal),
  },
  { tenants: tenantDirectory },
);
