import { keys } from '#shared/data/keys.ts';
import type { Item } from './store.ts';

export interface FormRecord {
  id: string;
  siteId: string;
  tenantId: string;
  formType: string;
  fields: Record<string, string>;
  status: number;
  internalNotes: string | null;
  isSpam: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A submission is its own item (one GetItem by id), listed newest first in its site's FORMS collection. */
export const formItem = (r: FormRecord) => ({
  ...keys.contentRecord('FORM', r.id),
  ...keys.newestFirst(keys.siteList(r.siteId, 'FORMS'), r.createdAt, r.id),
  ...r,
});

export const formView = (i: Item) => ({
  id: i.id as string,
  siteId: i.siteId as string,
  formType: i.formType as string,
  fields: (i.fields as Record<string, string>) ?? {},
  status: Number(i.status ?? 0),
  internalNotes: (i.internalNotes as string | null) ?? null,
  isSpam: i.isSpam === true,
  createdAt: i.createdAt as string,
  updatedAt: i.updatedAt as string,
});
