import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst, putNew } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { getGroup } from '#areas/identity/groups.ts';
import { getUser } from '#areas/identity/users.ts';
import { config } from '#shared/platform/config.ts';
import { entryItem, toBrief, type EntryRecord } from './entries.ts';
import { assertBiaMove, assertEditable, BIA_STATUS } from './states.ts';
import {
  ACTIVITY,
  activityPut,
  addCounts,
  all,
  bia,
  commit,
  deleteAll,
  putAll,
  readOr404,
  statsAdd,
  type Item,
} from './store.ts';

export interface BiaRecord {
  id: string;
  title: string;
  description: string | null;
  status: number;
  assignedToId: string | null;
  version: number;
  sourceBiaId: string | null;
  createdAt: string;
}

export const toBia = (i: Item): BiaRecord => ({
  id: i.id as string,
  title: i.title as string,
  description: (i.description as string | null) ?? null,
  status: Number(i.status ?? 0),
  assignedToId: (i.assignedToId as string | null) ?? null,
  version: Number(i.version ?? 1),
  sourceBiaId: (i.sourceBiaId as string | null) ?? null,
  createdAt: i.createdAt as string,
});

const biaItem = (t: string, r: BiaRecord) => ({
  ...bia.key(t, r.id),
  ...keys.newestFirst(bia.collection(t), r.createdAt, r.id),
  ...r,
  tenantId: t,
});
export const getBia = async (t: string, id: string) => toBia(await readOr404(bia.key(t, id), 'BIA'));

export async function biaDetail(t: string, id: string) {
  const [record, entries, assignments] = await Promise.all([
    getBia(t, id),
    all(bia.entries(t, id)),
    all(bia.assignments(t, id)),
  ]);
  return {
    ...record,
    assignments: assignments.map((a) => ({
      userId: a.sk as string,
      userName: a.userName as string,
      type: Number(a.type),
    })),
    entries: entries.sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt))).map(toBrief),
  };
}

export async function listBias(t: string, q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst(bia.collection(t), q);
  return toPage(items.map(toBia), totalCount, q.page, q.pageSize);
}

export async function createBia(
  t: string,
  input: { title: string; description?: string | null; status?: number | null },
  actor: Principal,
) {
  const now = new Date().toISOString();
  const record: BiaRecord = {
    id: crypto.randomUUID(),
    title: input.title,
    description: input.description || null,
    status: input.status ?? BIA_STATUS.Draft,
    assignedToId: null,
    version: 1,
    sourceBiaId: null,
    createdAt: now,
  };
  await commit(
    [
      putNew(biaItem(t, record)),
      bumpCounter(bia.collection(t), 1),
      statsAdd(t, { biasTotal: 1 }),
      activityPut(t, ACTIVITY.BiaCreated, `BIA "${record.title}" created`, now),
    ],
    {
      t,
      actor,
      entityType: 'Bia',
      entityId: record.id,
      action: 'create',
      changes: { title: record.title, status: record.status },
    },
    now,
  );
  return biaDetail(t, record.id);
}

/** Conditional on the status read, so a concurrent status change cannot be overwritten. */
const unchangedStatus = (t: string, r: BiaRecord, update: string, values: Record<string, unknown>) => ({
  Update: {
    TableName: config.tableName,
    Key: bia.key(t, r.id),
    UpdateExpression: update,
    ConditionExpression: '#status = :was',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ...values, ':was': r.status },
  },
});

export async function updateBia(
  t: string,
  id: string,
  input: { title?: string | null; description?: string | null },
  actor: Principal,
) {
  const r = await getBia(t, id);
  assertEditable(r);
  const title = input.title ?? r.title;
  const description = input.description === undefined ? r.description : input.description || null;
  await commit(
    [
      unchangedStatus(t, r, 'SET title = :title, description = :description', {
        ':title': title,
        ':description': description,
      }),
    ],
    { t, actor, entityType: 'Bia', entityId: id, action: 'update', changes: { title, description } },
  );
  return biaDetail(t, id);
}

export async function setBiaStatus(t: string, id: string, newStatus: number, actor: Principal) {
  const r = await getBia(t, id);
  assertBiaMove(r.status, newStatus);
  const now = new Date().toISOString();
  await commit(
    [
      unchangedStatus(t, r, 'SET #status = :new', { ':new': newStatus }),
      activityPut(t, ACTIVITY.BiaStatusChanged, `BIA "${r.title}" moved to status ${newStatus}`, now),
    ],
    { t, actor, entityType: 'Bia', entityId: id, action: 'status', changes: { from: r.status, to: newStatus } },
    now,
  );
  return biaDetail(t, id);
}

/** The assignee must be a user or group of the tenant; the assignment's id is the assignee's. */
export async function assign(t: string, id: string, input: { userId: string; type: number }, actor: Principal) {
  const r = await getBia(t, id);
  assertEditable(r);
  const assigneeId = input.userId.toLowerCase();
  const user = input.type === 0 ? await getUser(t, assigneeId) : undefined;
  const group = input.type === 1 ? await getGroup(t, assigneeId) : undefined;
  if (!user && !group)
    throw validationError([
      { path: 'body.userId', message: `No such ${input.type === 0 ? 'user' : 'group'} in this tenant` },
    ]);
  const userName = user ? `${user.firstName} ${user.lastName}`.trim() : group!.name;
  await commit(
    [
      {
        Put: {
          TableName: config.tableName,
          Item: { ...bia.assignmentKey(t, id, assigneeId), type: input.type, userName },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      r.assignedToId ? null : unchangedStatus(t, r, 'SET assignedToId = :a', { ':a': assigneeId }),
    ],
    { t, actor, entityType: 'Bia', entityId: id, action: 'assign', changes: { assigneeId, type: input.type } },
    undefined,
    'This assignee is already assigned',
  );
  return biaDetail(t, id);
}

export async function unassign(t: string, id: string, assigneeId: string, actor: Principal) {
  const r = await getBia(t, id);
  assertEditable(r);
  const key = bia.assignmentKey(t, id, assigneeId.toLowerCase());
  await readOr404(key, 'Assignment');
  await commit([{ Delete: { TableName: config.tableName, Key: key, ConditionExpression: 'attribute_exists(pk)' } }], {
    t,
    actor,
    entityType: 'Bia',
    entityId: id,
    action: 'unassign',
    changes: { assigneeId },
  });
}

/**
 * Deletes the children first (entries, assignments, counters), then the BIA in one transaction
 * with its counter, stats and audit entry: an interrupted delete leaves the BIA in place and a
 * retry removes the rest, so nothing is ever orphaned.
 */
export async function deleteBia(t: string, id: string, actor: Principal) {
  const r = await getBia(t, id);
  const [entries, assignments] = await Promise.all([all(bia.entries(t, id)), all(bia.assignments(t, id))]);
  await deleteAll([...entries, ...assignments].map((i) => ({ pk: i.pk as string, sk: i.sk as string })));
  await deleteAll([keys.counter(bia.entries(t, id))]);
  const now = new Date().toISOString();
  await commit(
    [
      { Delete: { TableName: config.tableName, Key: bia.key(t, id), ConditionExpression: 'attribute_exists(pk)' } },
      bumpCounter(bia.collection(t), -1),
      statsAdd(t, {
        biasTotal: -1,
        entriesTotal: -entries.length,
        entriesCompleted: -entries.filter((e) => e.completed === true).length,
      }),
      activityPut(t, ACTIVITY.BiaDeleted, `BIA "${r.title}" deleted`, now),
    ],
    {
      t,
      actor,
      entityType: 'Bia',
      entityId: id,
      action: 'delete',
      changes: { entries: entries.length, assignments: assignments.length },
    },
    now,
    'The BIA was deleted meanwhile',
  );
}

/**
 * Copies a BIA (any status) with its entries, their parts and its assignments into a new Draft
 * BIA that records its version (source + 1) and source. Entry ids are new; process dependencies
 * are remapped to the copies.
 */
export async function newVersion(t: string, id: string, actor: Principal) {
  const source = await getBia(t, id);
  const [entries, assignments] = await Promise.all([all(bia.entries(t, id)), all(bia.assignments(t, id))]);
  const now = new Date().toISOString();
  const copy: BiaRecord = {
    ...source,
    id: crypto.randomUUID(),
    status: BIA_STATUS.Draft,
    version: source.version + 1,
    sourceBiaId: source.id,
    createdAt: now,
  };
  const newIds = new Map(entries.map((e) => [e.id as string, crypto.randomUUID()]));
  const copies = entries.map((e) => {
    const record = e as unknown as EntryRecord;
    const deps = (record.processDependencies ?? [])
      .filter((d) => newIds.has(d.id))
      .map((d) => ({ id: newIds.get(d.id)! }));
    return entryItem(t, copy.id, { ...record, id: newIds.get(record.id)!, processDependencies: deps });
  });
  await putAll([...copies, ...assignments.map((a) => ({ ...a, ...bia.assignmentKey(t, copy.id, a.sk as string) }))]);
  if (copies.length) await addCounts(keys.counter(bia.entries(t, copy.id)), { count: copies.length });
  await commit(
    [
      putNew(biaItem(t, copy)),
      bumpCounter(bia.collection(t), 1),
      statsAdd(t, {
        biasTotal: 1,
        entriesTotal: copies.length,
        entriesCompleted: copies.filter((e) => e.completed).length,
      }),
      activityPut(t, ACTIVITY.BiaCreated, `BIA "${copy.title}" version ${copy.version} created`, now),
    ],
    {
      t,
      actor,
      entityType: 'Bia',
      entityId: copy.id,
      action: 'new-version',
      changes: { sourceBiaId: source.id, version: copy.version, entries: copies.length },
    },
    now,
  );
  return biaDetail(t, copy.id);
}
