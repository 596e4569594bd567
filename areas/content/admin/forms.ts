import { asRead } from '#shared/data/as-read.ts';
import type { Principal } from '#shared/auth/access-token.ts';
import { listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, updateItem } from '#shared/data/commit.ts';
import { getOr404 } from '#shared/data/read.ts';
import { toPage } from '#shared/http/responses.ts';
import { listOfSite } from '#areas/content/lookup.ts';
import { formKey, formView, nullable, siteList, toForm } from '#areas/content/records.ts';
import type { Item } from '#shared/data/keys.ts';

export async function listForms(
  siteId: string,
  q: { page: number; pageSize: number; status?: number; formType?: string },
) {
  const { items, totalCount } = await listOfSite(siteId, (id) =>
    listNewestFirst<Item>(siteList(id, 'FORMS'), {
      ...q,
      where: {
        ...(q.status !== undefined ? { status: q.status } : {}),
        ...(q.formType ? { formType: q.formType } : {}),
      },
    }),
  );
  return toPage(
    items.map((i) => formView(toForm(i))),
    totalCount,
    q.page,
    q.pageSize,
  );
}

const getFormRecord = async (id: string, consistent: boolean) =>
  toForm(await getOr404(formKey(id), 'Form submission', { consistent }));

export const getForm = async (id: string) => formView(await getFormRecord(id, false));

export async function setFormStatus(
  id: string,
  input: { status: number; internalNotes?: string | null },
  actor: Principal,
) {
  const was = await getFormRecord(id, true);
  const now = new Date().toISOString();
  const internalNotes = input.internalNotes === undefined ? was.internalNotes : nullable(input.internalNotes);
  await commitChange(
    [updateItem(formKey(was.id), { status: input.status, internalNotes, updatedAt: now }, asRead(was, 'updatedAt'))],
    {
      actor,
      tenantId: was.tenantId,
      entityType: 'FormSubmission',
      entityId: was.id,
      action: 'status',
      changes: { from: was.status, to: input.status, internalNotes: internalNotes !== null },
    },
    { now },
  );
  return formView({ ...was, status: input.status, internalNotes, updatedAt: now });
}
