import { keys, type Key, type Item } from '#shared/data/keys.ts';

/** Catalog records: suppliers and product-services, tenant-owned, listed newest first. */

export interface Supplier {
  id: string;
  tenantId: string;
  name: string;
  contactPerson: string | null;
  phone: string | null;
  email: string | null;
  isVendor: boolean;
  createdAt: string;
}

export interface ProductService {
  id: string;
  tenantId: string;
  name: string;
  code: string | null;
  description: string | null;
  createdAt: string;
}

export const catalogKeys = {
  supplier: (tenantId: string, id: string): Key => keys.tenantItem(tenantId, 'SUPPLIER', id),
  suppliers: (tenantId: string) => keys.tenantCollection(tenantId, 'SUPPLIER'),
  product: (tenantId: string, id: string): Key => keys.tenantItem(tenantId, 'PRODUCT', id),
  products: (tenantId: string) => keys.tenantCollection(tenantId, 'PRODUCT'),
  /** Guards a product code within its tenant, case-insensitively. */
  productCode: (tenantId: string, code: string): Key => keys.unique('PRODUCT_CODE', code.toLowerCase(), tenantId),
};

/** The stored supplier: the record, its newest-first index keys and its search text. */
export const supplierItem = (s: Supplier) => ({
  ...catalogKeys.supplier(s.tenantId, s.id),
  ...keys.newestFirst(catalogKeys.suppliers(s.tenantId), s.createdAt, s.id),
  ...s,
  searchText: [s.name, s.contactPerson, s.email].filter(Boolean).join(' ').toLowerCase(),
});

export const productItem = (p: ProductService) => ({
  ...catalogKeys.product(p.tenantId, p.id),
  ...keys.newestFirst(catalogKeys.products(p.tenantId), p.createdAt, p.id),
  ...p,
  searchText: [p.name, p.code].filter(Boolean).join(' ').toLowerCase(),
});

const str = (v: unknown) => (typeof v === 'string' ? v : null);

export const toSupplier = (item: Item): Supplier => ({
  id: item.id as string,
  tenantId: item.tenantId as string,
  name: item.name as string,
  contactPerson: str(item.contactPerson),
  phone: str(item.phone),
  email: str(item.email),
  isVendor: item.isVendor === true,
  createdAt: item.createdAt as string,
});

export const toProduct = (item: Item): ProductService => ({
  id: item.id as string,
  tenantId: item.tenantId as string,
  name: item.name as string,
  code: str(item.code),
  description: str(item.description),
  createdAt: item.createdAt as string,
});
