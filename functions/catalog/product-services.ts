import { auditPut, countAudit } from '#shared/data/audit.ts';
import { bumpCounter, claimUnique, listNewestFirst, putNew } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { transact } from '#shared/data/transact.ts';
import type { Principal } from '#shared/auth/access-token.ts';
import { conflict } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';

export interface ProductService {
  id: string;
  tenantId: string;
  name: string;
  code: string | null;
  description: string | null;
  createdAt: string;
}

export interface NewProductService {
  name: string;
  code?: string | null;
  description?: string | null;
}

const toProduct = (item: Record<string, unknown>): ProductService => ({
  id: item.id as string,
  tenantId: item.tenantId as string,
  name: item.name as string,
  code: (item.code as string | null) ?? null,
  description: (item.description as string | null) ?? null,
  createdAt: item.createdAt as string,
});

/** A product code is unique within its tenant, case-insensitively, guarded in the same transaction. */
export async function createProductService(
  tenantId: string,
  input: NewProductService,
  actor: Principal,
): Promise<ProductService> {
  const product: ProductService = {
    id: crypto.randomUUID(),
    tenantId,
    name: input.name,
    code: input.code || null,
    description: input.description ?? null,
    createdAt: new Date().toISOString(),
  };
  const collection = keys.tenantCollection(tenantId, 'PRODUCT');
  const searchText = [product.name, product.code].filter(Boolean).join(' ').toLowerCase();
  const items = [
    putNew({
      ...keys.tenantItem(tenantId, 'PRODUCT', product.id),
      ...keys.newestFirst(collection, product.createdAt, product.id),
      ...product,
      searchText,
    }),
    bumpCounter(collection, 1),
    auditPut({
      entityType: 'ProductService',
      entityId: product.id,
      action: 'create',
      changes: { ...input },
      actor,
      tenantId,
    }),
  ];
  if (product.code)
    items.push(claimUnique(keys.unique('PRODUCT_CODE', product.code.toLowerCase(), tenantId), { ownerId: product.id }));
  const outcome = await transact(items);
  if (!outcome.ok) throw conflict(`Product code '${product.code}' is already in use`);
  await countAudit(1);
  return product;
}

export async function listProductServices(tenantId: string, q: { page: number; pageSize: number; search?: string }) {
  const { items, totalCount } = await listNewestFirst(keys.tenantCollection(tenantId, 'PRODUCT'), q);
  return toPage(items.map(toProduct), totalCount, q.page, q.pageSize);
}
