import type { Principal } from '#shared/auth/access-token.ts';
import { channelById, windowOpen, type ChannelType } from '#areas/channels/for-connector.ts';
import { requireAgents } from '#areas/identity/for-connector.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, orConflict, putItem, putNew, type Change } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { queryItems } from '#shared/data/query.ts';
import { type ApiError, notFound, validationError } from '#shared/http/errors.ts';
import {
  channelInactive,
  messageNotCancellable,
  noConversationReference,
  proactiveNotSupported,
  windowClosed,
} from './errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { logger } from '#shared/runtime/logger.ts';
import { enqueue } from '#shared/queue/messages.ts';
import { PROACTIVE_SEND } from './queue.ts';
import { teamsReference } from './teams-reference.ts';
import { checkTemplate, type TemplateUse } from './templates.ts';
import {
  type DeliveryStatus,
  dueEntry,
  dueIndex,
  proactiveKey,
  proactiveList,
  proactiveListEntry,
  type ProactiveStatus,
} from './records.ts';

/**
 * Proactive messages (spec "AI connector" routes 1-4): a tenant writes first to a person on a
 * connection, now (Queued at once) or at a time (Scheduled, queued by the scheduler's minute). The
 * channel worker sends it and records the outcome: Sent with the time, or Failed with the platform's
 * error once retrying cannot help. A Scheduled or Queued one may be cancelled; after that, 409.
 */
export interface ProactiveRecord {
  id: string;
  tenantId: string;
  channelId: string;
  channelType: ChannelType;
  recipient: string;
  /** Free text; null when only a template was given. */
  text: string | null;
  /** WhatsApp: the registered template it goes as outside the 24-hour window (or when there is no text). */
  template?: TemplateUse | null;
  /** How it went: chosen at the send, when the window is known. */
  sentAs?: 'text' | 'template' | null;
  status: ProactiveStatus;
  error: string | null;
  scheduledAt: string | null;
  sentAt: string | null;
  createdAt: string;
  /** The platform's id of the message sent (Slack ts, wamid ...). */
  platformMessageId?: string | null;
  /** What the platform reported after the send (WhatsApp status callbacks); Sent at the send. */
  deliveryStatus?: DeliveryStatus | null;
  deliveryError?: string | null;
}

const toProactive = (m: ProactiveRecord) => ({
  id: m.id,
  channelId: m.channelId,
  channelType: m.channelType,
  recipient: m.recipient,
  text: m.text,
  template: m.template ?? null,
  sentAs: m.sentAs ?? null,
  status: m.status,
  error: m.error,
  deliveryStatus: m.deliveryStatus ?? null,
  deliveryError: m.deliveryError ?? null,
  scheduledAt: m.scheduledAt,
  sentAt: m.sentAt,
  createdAt: m.createdAt,
});

const change = (m: ProactiveRecord, actor: Change['actor'], action: string, changes: Change['changes']): Change => ({
  tenantId: m.tenantId,
  actor,
  entityType: 'ProactiveMessage',
  entityId: m.id,
  action,
  changes,
});

/** The stored item: the record, its list entry, and while Scheduled its place on the due index. */
const item = (m: ProactiveRecord) => ({
  ...proactiveKey(m.tenantId, m.id),
  ...(m.status === 'Scheduled' && m.scheduledAt ? dueEntry(m.scheduledAt, m) : {}),
  ...proactiveListEntry(m),
  ...m,
});

export async function createProactive(
  tenantId: string,
  input: { channelId: string; recipient: string; text?: string; template?: TemplateUse; scheduledAt?: string | null },
  actor: Principal,
) {
  await requireAgents(tenantId);
  const found = await channelById(input.channelId);
  if (!found || found.tenantId !== tenantId) throw notFound('Channel connection');
  const channel = found.connection;
  if (!channel.isActive) throw channelInactive();
  const now = Date.now();
  const at = input.scheduledAt ? Date.parse(input.scheduledAt) : Number.NaN;
  // A time already past is "now": the person gets it at once rather than never.
  const scheduled = Number.isFinite(at) && at > now;
  const sendAt = scheduled ? at : now;
  if (channel.type === 'whatsapp') {
    // A template may go at any time; free text only inside the window, so without a template it must be open.
    if (input.template) await checkTemplate(tenantId, channel.id, input.template);
    else if (!(await windowOpen(tenantId, channel.id, input.recipient, sendAt))) throw windowClosed();
  } else if (input.template)
    throw validationError([{ path: 'body.template', message: 'Message templates are a WhatsApp feature' }]);
  else if (input.text === undefined)
    throw validationError([{ path: 'body.text', message: 'Required on this platform' }]);
  else if (channel.type === 'teams') {
    if (channel.settings.mode !== 'bot') throw proactiveNotSupported();
    // Checked again at the send (a later activity may have moved it); here so the client learns now.
    if (!(await teamsReference(tenantId, channel.id, input.recipient))) throw noConversationReference();
  }
  const m: ProactiveRecord = {
    id: crypto.randomUUID(),
    tenantId,
    channelId: channel.id,
    channelType: channel.type,
    recipient: input.recipient,
    text: input.text ?? null,
    template: input.template ?? null,
    sentAs: null,
    status: scheduled ? 'Scheduled' : 'Queued',
    error: null,
    scheduledAt: scheduled ? new Date(at).toISOString() : null,
    sentAt: null,
    createdAt: new Date(now).toISOString(),
    deliveryStatus: null,
    deliveryError: null,
  };
  await commitChange(
    [putNew(item(m)), bumpCounter(proactiveList(tenantId), 1)],
    change(m, actor, 'create', {
      channelId: m.channelId,
      recipient: m.recipient,
      status: m.status,
      scheduledAt: m.scheduledAt,
      ...(m.template ? { template: `${m.template.name} (${m.template.language})` } : {}),
    }),
    { now: m.createdAt },
  );
  if (!scheduled) await queueSend(m);
  return toProactive(m);
}

/** The send is queued under the message's id: a repeated enqueue (a sweep run twice) sends once. */
async function queueSend(m: ProactiveRecord) {
  try {
    await enqueue(PROACTIVE_SEND, { tenantId: m.tenantId, messageId: m.id }, { id: `proactive:${m.id}` });
  } catch (err) {
    await settle(m, 'Queued', { status: 'Failed', error: 'The message could not be queued for sending' }).catch(
      () => undefined,
    );
    throw err;
  }
}

export async function readProactive(tenantId: string, id: string, consistent = false): Promise<ProactiveRecord> {
  const m = await get<ProactiveRecord>(proactiveKey(tenantId, id), { consistent });
  if (!m) throw notFound('Proactive message');
  return m;
}

export const getProactive = async (tenantId: string, id: string) => toProactive(await readProactive(tenantId, id));

export async function listProactive(
  tenantId: string,
  q: { page: number; pageSize: number; status?: ProactiveStatus; channelId?: string },
) {
  const { items, totalCount } = await listNewestFirst<ProactiveRecord>(proactiveList(tenantId), {
    page: q.page,
    pageSize: q.pageSize,
    where: { ...(q.status ? { status: q.status } : {}), ...(q.channelId ? { channelId: q.channelId } : {}) },
  });
  return toPage(items.map(toProactive), totalCount, q.page, q.pageSize);
}

/**
 * Moves the message from `from` to the fields given, conditional on it still being `from` (a cancel
 * and a send racing: the first wins). Leaving Scheduled takes it off the due index (the item is replaced).
 */
async function settle(
  m: ProactiveRecord,
  from: ProactiveStatus,
  to: Partial<ProactiveRecord> & { status: ProactiveStatus },
  actor: Change['actor'] = null,
  onConflict: string | ApiError = 'The proactive message changed meanwhile',
) {
  const next: ProactiveRecord = { ...m, ...to };
  const put = putItem(item(next), '#status = :from', { ':from': from });
  await commitChange(
    [orConflict({ Put: { ...put.Put!, ExpressionAttributeNames: { '#status': 'status' } } }, onConflict)],
    change(next, actor, to.status === 'Cancelled' ? 'cancel' : 'status', {
      from,
      to: to.status,
      ...(to.error ? { error: to.error } : {}),
    }),
  );
  return next;
}

export async function cancelProactive(tenantId: string, id: string, actor: Principal) {
  const m = await readProactive(tenantId, id, true);
  if (m.status !== 'Scheduled' && m.status !== 'Queued') throw messageNotCancellable(m.status);
  await settle(m, m.status, { status: 'Cancelled' }, actor, messageNotCancellable('Sent'));
}

/**
 * The scheduler's minute (docs/architecture.md, "The scheduler"): every Scheduled message whose time has
 * come, found on the due index (one Query, no Scan), moves to Queued and is queued for sending.
 */
export async function queueDueProactiveMessages(now = Date.now()): Promise<number> {
  const due = await queryItems<ProactiveRecord>({
    TableName: config.tableName,
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :now',
    ExpressionAttributeValues: { ':pk': dueIndex.pk, ':now': `${new Date(now).toISOString()}#~` },
  });
  let queued = 0;
  for (const found of due) {
    const m = await get<ProactiveRecord>(proactiveKey(found.tenantId, found.id), { consistent: true });
    if (m?.status !== 'Scheduled') continue;
    try {
      const next = await settle(m, 'Scheduled', { status: 'Queued' });
      await queueSend(next);
      queued++;
    } catch (err) {
      logger.warn('due proactive message not queued', { messageId: m.id, error: err as Error });
    }
  }
  return queued;
}

/** What the channel worker records once a send settles. */
export const markSent = (m: ProactiveRecord, platformMessageId: string, sentAs: 'text' | 'template') =>
  settle(m, 'Queued', {
    status: 'Sent',
    sentAt: new Date().toISOString(),
    error: null,
    platformMessageId,
    sentAs,
    deliveryStatus: 'Sent',
  });

export const markFailed = (m: ProactiveRecord, error: string) =>
  settle(m, 'Queued', { status: 'Failed', error: error.slice(0, 1000) });
