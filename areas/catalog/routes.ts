import * as z from 'zod/mini';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { optionalEmail, optionalText, pageOf, paging, searchTerm, text, uuid } from '#shared/routes/schemas.ts';

const supplierSchema = once(() =>
  z.object({
    id: z.string(),
    tenantId: z.string(),
    name: z.string(),
    contactPerson: z.nullable(z.string()),
    phone: z.nullable(z.string()),
    email: z.nullable(z.string()),
    isVendor: z.boolean(),
    createdAt: z.string(),
  }),
);

const productServiceSchema = once(() =>
  z.object({
    id: z.string(),
    tenantId: z.string(),
    name: z.string(),
    code: z.nullable(z.string()),
    description: z.nullable(z.string()),
    createdAt: z.string(),
  }),
);

const listQuery = once(() => z.object({ tenantId: z.optional(uuid()), search: searchTerm(), ...paging() }));
const bearer = (permission: 'suppliers:read' | 'suppliers:write' | 'products:read' | 'products:write') =>
  ({ kind: 'bearer', permission }) as const;

export const catalogRoutes = defineRoutes([
  {
    id: 'suppliers.list',
    method: 'GET',
    path: '/api/suppliers',
    group: 'catalog',
    auth: bearer('suppliers:read'),
    summary: 'List suppliers of a tenant, newest first; `search` matches name, contact and e-mail',
    scope: scope.tenant({ tenantFrom: 'query' }),
    status: 200,
    schemas: () => ({
      query: listQuery(),
      response: pageOf(supplierSchema()),
    }),
  },
  {
    id: 'suppliers.create',
    method: 'POST',
    path: '/api/suppliers',
    group: 'catalog',
    auth: bearer('suppliers:write'),
    summary: 'Create a supplier',
    scope: scope.tenant({ tenantFrom: 'body' }),
    status: 201,
    schemas: () => ({
      body: z.object({
        name: text(200),
        contactPerson: optionalText(100),
        phone: optionalText(40),
        email: optionalEmail(),
        isVendor: z.optional(z.boolean()),
        tenantId: uuid(),
      }),
      response: supplierSchema(),
    }),
  },
  {
    id: 'suppliers.get',
    method: 'GET',
    path: '/api/suppliers/{supplierId}',
    group: 'catalog',
    auth: bearer('suppliers:read'),
    summary: 'Get one supplier',
    scope: scope.tenant({
      tenantFrom: 'query',
      record: { param: 'supplierId', collection: 'SUPPLIER', label: 'Supplier' },
    }),
    status: 200,
    schemas: () => ({
      params: z.object({ supplierId: uuid() }),
      query: z.object({ tenantId: z.optional(uuid()) }),
      response: supplierSchema(),
    }),
  },
  {
    id: 'products.list',
    method: 'GET',
    path: '/api/product-services',
    group: 'catalog',
    auth: bearer('products:read'),
    summary: 'List product-services of a tenant, newest first; `search` matches name and code',
    scope: scope.tenant({ tenantFrom: 'query' }),
    status: 200,
    schemas: () => ({
      query: listQuery(),
      response: pageOf(productServiceSchema()),
    }),
  },
  {
    id: 'products.create',
    method: 'POST',
    path: '/api/product-services',
    group: 'catalog',
    auth: bearer('products:write'),
    summary: 'Create a product-service; `code` is unique within the tenant (409 CONFLICT)',
    scope: scope.tenant({ tenantFrom: 'body' }),
    status: 201,
    schemas: () => ({
      body: z.object({
        name: text(200),
        code: optionalText(50),
        description: optionalText(2000),
        tenantId: uuid(),
      }),
      response: productServiceSchema(),
    }),
  },
]);
