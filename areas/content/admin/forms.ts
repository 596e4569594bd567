import type { Principal } from '#shared/auth/access-token.ts';
import { listNewestFirst } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { toPage } from '#shared/http/responses.ts';
import { formView } from '#areas/content/forms.ts';
import { commit, nullable, readOr404, type Item } from '#areas/content/store.ts';
import { config } from '#shared/platform/config.ts';
import { listOfSite } from './site-lists.ts';

export async function listForms(
  siteId: string,
  q: { page: number; pageSize: number; status?: number; formType?: string },
) {
  const { items, totalCount } = await listOfSite(siteId, (id) =>
    listNewestFirst<Item>(keys.siteList(id, 'FORMS'), {
      ...q,
      where: { status: q.status, formType: q.formType } as Record<string, string | number>,
    }),
  );
  return toPage(items.map(formView), totalCount, q.page, q.pageSize);
}

export const getForm = async (id: string, consistent = false) =>
  formView(await readOr404(keys.contentRecord('FORM', id.toLowerCase()), 'Form submission', consistent));

export async function setFormStatus(
  id: string,
  input: { status: number; internalNotes?: string | null },
  actor: Principal,
) {
  const was = await readOr404(keys.contentRecord('FORM', id.toLowerCase()), 'Form submission');
  const now = new Date().toISOString();
  const internalNotes =
    input.internalNotes === undefined ? ((was.internalNotes as string | null) ?? null) : nullable(input.internalNotes);
  await commit(
    [
      {
        Update: {
          TableName: config.tableName,
          Key: keys.contentRecord('FORM', was.id as string),
          UpdateExpression: 'SET #status = :status, internalNotes = :notes, updatedAt = :now',
          ConditionExpression: 'updatedAt = :was',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':status': input.status,
            ':notes': internalNotes,
            ':now': now,
            ':was': was.updatedAt,
          },
        },
      },
    ],
    {
      actor,
      tenantId: (was.tenantId as string) ?? null,
      entityType: 'FormSubmission',
      entityId: was.id as string,
      action: 'status',
      changes: { from: was.status, to: input.status, internalNotes: internalNotes !== null },
    },
    {},
    now,
  );
  return formView({ ...was, status: input.status, internalNotes, updatedAt: now });
}
