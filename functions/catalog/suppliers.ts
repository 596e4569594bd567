import { auditPut, countAudit } from '#shared/data/audit.ts';
import { bumpCounter, getItem, listNewestFirst, putNew } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { transact } from '#shared/data/transact.ts';
import type { Principal } from '#shared/auth/access-token.ts';
import { toPage } from '#shared/http/responses.ts';

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

export interface NewSupplier {
  name: string;
  contactPerson?: string | null;
  phone?: string | null;
  email?: string | null;
  isVendor?: boolean;
}

const toSupplier = (item: Record<string, unknown>): Supplier => ({
  id: item.id as string,
  tenantId: item.tenantId as string,
  name: item.name as string,
  contactPerson: (item.contactPerson as string | null) ?? null,
  phone: (item.phone as string | null) ?? null,
  email: (item.email as string | null) ?? null,
  isVendor: item.isVendor === true,
  createdAt: item.createdAt as string,
});

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
  const collection = keys.tenantCollection(tenantId, 'SUPPLIER');
  const searchText = [supplier.name, supplier.contactPerson, supplier.email].filter(Boolean).join(' ').toLowerCase();
  await transact([
    putNew({
      ...keys.tenantItem(tenantId, 'SUPPLIER', supplier.id),
      ...keys.newestFirst(collection, supplier.createdAt, supplier.id),
      ...supplier,
      searchText,
    }),
    bumpCounter(collection, 1),
    auditPut({
      entityType: 'Supplier',
      entityId: supplier.id,
      action: 'create',
      changes: { ...input },
      actor,
      tenantId,
    }),
  ]);
  await countAudit(1);
  return supplier;
}

export async function getSupplier(tenantId: string, id: string): Promise<Supplier | undefined> {
  const item = await getItem(keys.tenantItem(tenantId, 'SUPPLIER', id.toLowerCase()));
  return item ? toSupplier(item) : undefined;
}

export async function listSuppliers(tenantId: string, q: { page: number; pageSize: number; search?: string }) {
  const { items, totalCount } = await listNewestFirst(keys.tenantCollection(tenantId, 'SUPPLIER'), q);
  return toPage(items.map(toSupplier), totalCount, q.page, q.pageSize);
}
