import type { Principal } from '#shared/auth/access-token.ts';
import { channelById } from '#areas/channels/for-connector.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, deleteItem, orConflict, putNew } from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { get } from '#shared/data/read.ts';
import { conflict, notFound, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { templatesNotSupported } from './errors.ts';
import { templateKey, templateList, templateNameKey } from './records.ts';

/**
 * WhatsApp message templates: outside the 24-hour window Meta delivers only a template the WhatsApp
 * Business account had approved. The tenant registers here what Meta approved (name, language, how
 * many body parameters), so a proactive message naming one is checked before it is queued rather than
 * refused by Meta later (error 132000, parameter count mismatch; 132001, template does not exist).
 */
export interface TemplateRecord {
  id: string;
  tenantId: string;
  channelId: string;
  name: string;
  language: string;
  parameterCount: number;
  createdAt: string;
}

export interface TemplateUse {
  name: string;
  language: string;
  parameters: string[];
}

const toTemplate = (t: TemplateRecord) => ({
  id: t.id,
  channelId: t.channelId,
  name: t.name,
  language: t.language,
  parameterCount: t.parameterCount,
  createdAt: t.createdAt,
});

async function whatsAppChannel(tenantId: string, channelId: string) {
  const found = await channelById(channelId);
  if (!found || found.tenantId !== tenantId) throw notFound('Channel connection');
  if (found.connection.type !== 'whatsapp') throw templatesNotSupported();
  return found.connection;
}

export async function registerTemplate(
  tenantId: string,
  channelId: string,
  input: { name: string; language: string; parameterCount: number },
  actor: Principal,
) {
  await whatsAppChannel(tenantId, channelId);
  const t: TemplateRecord = {
    id: crypto.randomUUID(),
    tenantId,
    channelId,
    name: input.name,
    language: input.language,
    parameterCount: input.parameterCount,
    createdAt: new Date().toISOString(),
  };
  const list = templateList(tenantId, channelId);
  await commitChange(
    [
      putNew({ ...templateKey(tenantId, channelId, t.id), ...keys.newestFirst(list, t.createdAt, t.id), ...t }),
      orConflict(
        putNew({ ...templateNameKey(tenantId, channelId, t.name, t.language), templateId: t.id, ...t }),
        conflict(`A template named ${t.name} in ${t.language} is already registered on this connection`),
      ),
      bumpCounter(list, 1),
    ],
    {
      tenantId,
      actor,
      entityType: 'WhatsAppTemplate',
      entityId: t.id,
      action: 'create',
      changes: { channelId, name: t.name, language: t.language, parameterCount: t.parameterCount },
    },
    { now: t.createdAt },
  );
  return toTemplate(t);
}

export async function listTemplates(tenantId: string, channelId: string, q: { page: number; pageSize: number }) {
  await whatsAppChannel(tenantId, channelId);
  const { items, totalCount } = await listNewestFirst<TemplateRecord>(templateList(tenantId, channelId), q);
  return toPage(items.map(toTemplate), totalCount, q.page, q.pageSize);
}

export async function deleteTemplate(tenantId: string, channelId: string, templateId: string, actor: Principal) {
  await whatsAppChannel(tenantId, channelId);
  const t = await get<TemplateRecord>(templateKey(tenantId, channelId, templateId), { consistent: true });
  if (!t) throw notFound('Template');
  await commitChange(
    [
      orConflict(
        deleteItem(templateKey(tenantId, channelId, templateId), 'attribute_exists(pk)'),
        notFound('Template'),
      ),
      deleteItem(templateNameKey(tenantId, channelId, t.name, t.language)),
      bumpCounter(templateList(tenantId, channelId), -1),
    ],
    {
      tenantId,
      actor,
      entityType: 'WhatsAppTemplate',
      entityId: templateId,
      action: 'delete',
      changes: { channelId, name: t.name, language: t.language },
    },
  );
}

/**
 * A proactive message's template, checked against the registration: registered on this connection
 * under that name and language, with exactly its number of parameters (Meta refuses any other count).
 */
export async function checkTemplate(tenantId: string, channelId: string, use: TemplateUse) {
  const found = await get<TemplateRecord>(templateNameKey(tenantId, channelId, use.name, use.language), {
    consistent: true,
  });
  if (!found)
    throw validationError([
      {
        path: 'body.template.name',
        message: `No template ${use.name} in ${use.language} is registered on this connection`,
      },
    ]);
  if (use.parameters.length !== found.parameterCount)
    throw validationError([
      {
        path: 'body.template.parameters',
        message: `The template takes ${found.parameterCount} parameter(s); ${use.parameters.length} given`,
      },
    ]);
}
