import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, putNew } from '#shared/data/commit.ts';
import { getOr404 } from '#shared/data/read.ts';
import { toPage } from '#shared/http/responses.ts';
import { catalogKeys, supplierItem, toSupplier, type Supplier } from './records.ts';

export interface NewSupplier {
  name: string;
  contactPerson?: string | null;
  phone?: string | null;
  email?: string | null;
  isVendor?: boolean;
}

/** A new supplier and its collection's counter; a failed condition (the id taken) is 409, never a silent success. */
export async function createSupplier(tenantId: string, input: NewSupplier, actor: Principal): Promise<Supplier> {
  const supplier: Supplier = {
    id: crypto.randomUUID(),
    tenantId,
    name: input.name,
    contactPerson: input.contactPerson ?? null,
    phone: input.phone ?? null,
    email: input.email ?? null,
    isVendor: input.isVendor ?? false,
    createdAt: new Date().toISOString(),
  };
  await commitChange(
    [putNew(supplierItem(supplier)), bumpCounter(catalogKeys.suppliers(tenantId), 1)],
    { tenantId, actor, entityType: 'Supplier', entityId: supplier.id, action: 'create', changes: { ...input } },
    { now: supplier.createdAt },
  );
  return supplier;
}

export async function getSupplier(tenantId: string, id: string): Promise<Supplier> {
  return toSupplier(await getOr404(catalogKeys.supplier(tenantId, id), 'Supplier'));
}

export async function listSuppliers(tenantId: string, q: { page: number; pageSize: number; search?: string }) {
  const { items, totalCount } = await listNewestFirst(catalogKeys.suppliers(tenantId), q);
  return toPage(items.map(toSupplier), totalCount, q.page, q.pageSize);
}
