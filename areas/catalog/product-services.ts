import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, orConflict, putNew } from '#shared/data/commit.ts';
import { toPage } from '#shared/http/responses.ts';
import { catalogKeys, productItem, toProduct, type ProductService } from './records.ts';

export interface NewProductService {
  name: string;
  code?: string | null;
  description?: string | null;
}

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
  await commitChange(
    [
      putNew(productItem(product)),
      bumpCounter(catalogKeys.products(tenantId), 1),
      product.code
        ? orConflict(
            putNew({ ...catalogKeys.productCode(tenantId, product.code), ownerId: product.id }),
            `Product code '${product.code}' is already in use`,
          )
        : null,
    ],
    {
      tenantId,
      actor,
      entityType: 'ProductService',
      entityId: product.id,
      action: 'create',
      changes: { ...input },
    },
    { now: product.createdAt },
  );
  return product;
}

export async function listProductServices(tenantId: string, q: { page: number; pageSize: number; search?: string }) {
  const { items, totalCount } = await listNewestFirst(catalogKeys.products(tenantId), q);
  return toPage(items.map(toProduct), totalCount, q.page, q.pageSize);
}
