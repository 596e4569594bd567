import { bumpCounter } from '#shared/data/collection.ts';
import { checkItem, commitChange, orConflict, putNew } from '#shared/data/commit.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { type FormRecord, formItem, siteKey, siteList } from '#areas/content/records.ts';
import { FORM_SPAM, HONEYPOT_FIELD } from '#areas/content/vocabulary.ts';
import { activeSite } from './reads.ts';

/**
 * Stores a submission as New. A filled honeypot field marks a bot: the submission is stored as
 * Spam (the answer is the same, so a bot learns nothing) and the field itself is dropped.
 */
export async function submitForm(siteId: string, input: { formType: string; fields: Record<string, string> }) {
  const site = await activeSite(siteId);
  const { [HONEYPOT_FIELD]: honeypot, ...fields } = input.fields;
  const isSpam = !!honeypot?.trim();
  const now = new Date().toISOString();
  const record: FormRecord = {
    id: crypto.randomUUID(),
    siteId: site.id,
    tenantId: site.tenantId,
    formType: input.formType,
    fields,
    status: isSpam ? FORM_SPAM : 0,
    internalNotes: null,
    isSpam,
    createdAt: now,
    updatedAt: now,
  };
  await commitChange(
    [
      putNew(formItem(record)),
      bumpCounter(siteList(site.id, 'FORMS'), 1),
      orConflict(checkItem(siteKey(site.id), 'attribute_exists(pk)'), 'The site was deleted meanwhile'),
    ],
    {
      actor: null,
      tenantId: site.tenantId,
      entityType: 'FormSubmission',
      entityId: record.id,
      action: 'create',
      changes: { siteId: site.id, formType: record.formType, fields: Object.keys(fields).length, isSpam },
    },
    { now },
  );
  countMetric('ContentFormSubmitted', isSpam ? 'spam' : 'accepted');
  return { id: record.id, formType: record.formType, createdAt: now };
}
