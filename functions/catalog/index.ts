import { scopeRecord, scopeTenant } from '#shared/auth/tenant-scope.ts';
import { notFound } from '#shared/http/errors.ts';

import { catalogRoutes } from '#shared/routes/catalog.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { createProductService, listProductServices } from './product-services.ts';
import { createSupplier, getSupplier, listSuppliers } from './suppliers.ts';

export const handler = apiHandler(catalogRoutes, {
  'suppliers.list': async ({ principal, query }) =>
    await listSuppliers(await scopeTenant(principal!, query.tenantId), query),
  'suppliers.create': async ({ principal, body }) => {
    const { tenantId, ...input } = body;
    return await createSupplier(await scopeTenant(principal!, tenantId, 'body.tenantId'), input, principal!);
  },
  'suppliers.get': async ({ principal, params, query }) => {
    const id = params.supplierId.toLowerCase();
    const supplier = await getSupplier(
      await scopeRecord(principal!, query.tenantId, { collection: 'SUPPLIER', id, label: 'Supplier' }),
      id,
    );
    if (!supplier) throw notFound('Supplier');
    return supplier;
  },
  'products.list': async ({ principal, query }) =>
    await listProductServices(await scopeTenant(principal!, query.tenantId), query),
  'products.create': async ({ principal, body }) => {
    const { tenantId, ...input } = body;
    return await createProductService(await scopeTenant(principal!, tenantId, 'body.tenantId'), input, principal!);
  },
});
