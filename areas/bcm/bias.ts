import type { Principal } from '#shared/auth/access-token.ts';
import { deleteAll, putAll } from '#shared/data/batch.ts';
import { bumpCounter, listNewestFirst, putNew } from '#shared/data/collection.ts';
import { commitChange, deleteItem, orConflict, putItem, updateItem, type Change } from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { get, getOr404 } from '#shared/data/read.ts';
import { validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { getGroup } from '#areas/identity/group-lookup.ts';
import { getUser } from '#areas/identity/user-accounts.ts';
import {
  ACTIVITY,
  activityPut,
  assignmentItem,
  bia,
  biaItem,
  childItems,
  entryItem,
  entryRecordOf,
  keyOf,
  statsAdd,
  toBia,
  toBiaDetail,
  type AssignmentItem,
  type BiaItem,
  type BiaRecord,
  type EntryItem,
} from './records.ts';
import { ASSIGNEE_TYPE, assertBiaMove, assertEditable, BIA_STATUS } from './states.ts';

const change = (t: string, actor: Principal, entityId: string, action: string, changes: Change['changes']): Change => ({
  tenantId: t,
  actor,
  entityType: 'Bia',
  entityId,
  action,
  changes,
});

/** The BIA, read consistently (state checks before a change), or 404. */
export const getBia = async (t: string, id: string) =>
  toBia(await getOr404<BiaItem>(bia.key(t, id), 'BIA', { consistent: true }));

export async function biaDetail(t: string, id: string) {
  const [record, entries, assignments] = await Promise.all([
    getBia(t, id),
    childItems<EntryItem>(bia.entries(t, id)),
    childItems<AssignmentItem>(bia.assignments(t, id)),
  ]);
  return toBiaDetail(record, assignments, entries);
}

export async function listBias(t: string, q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst<BiaItem>(bia.collection(t), q);
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
  await commitChange(
    [
      putNew(biaItem(t, record)),
      bumpCounter(bia.collection(t), 1),
      statsAdd(t, { biasTotal: 1 }),
      activityPut(t, ACTIVITY.BiaCreated, `BIA "${record.title}" created`, now),
    ],
    change(t, actor, record.id, 'create', { title: record.title, status: record.status }),
    { now },
  );
  return toBiaDetail(record, [], []);
}

/** Conditional on the status read, so a concurrent status change cannot be overwritten. */
const unchangedStatus = (t: string, r: BiaRecord, set: Record<string, unknown>) =>
  orConflict(
    updateItem(bia.key(t, r.id), set, {
      condition: '#status = :was',
      names: { '#status': 'status' },
      values: { ':was': r.status },
    }),
    'The BIA changed meanwhile; try again',
  );

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
  await commitChange(
    [unchangedStatus(t, r, { title, description })],
    change(t, actor, id, 'update', { title, description }),
  );
  return biaDetail(t, id);
}

export async function setBiaStatus(t: string, id: string, newStatus: number, actor: Principal) {
  const r = await getBia(t, id);
  assertBiaMove(r.status, newStatus);
  const now = new Date().toISOString();
  await commitChange(
    [
      unchangedStatus(t, r, { status: newStatus }),
      activityPut(t, ACTIVITY.BiaStatusChanged, `BIA "${r.title}" moved to status ${newStatus}`, now),
    ],
    change(t, actor, id, 'status', { from: r.status, to: newStatus }),
    { now },
  );
  return biaDetail(t, id);
}

/** The assignee must be a user or group of the tenant; the assignment's id is the assignee's. */
export async function assign(t: string, id: string, input: { userId: string; type: number }, actor: Principal) {
  const r = await getBia(t, id);
  assertEditable(r);
  const assigneeId = input.userId;
  const isUser = input.type === ASSIGNEE_TYPE.User;
  const user = isUser ? await getUser(t, assigneeId) : undefined;
  const group = isUser ? undefined : await getGroup(t, assigneeId);
  const userName = user ? `${user.firstName} ${user.lastName}`.trim() : group?.name;
  if (userName === undefined)
    throw validationError([{ path: 'body.userId', message: `No such ${isUser ? 'user' : 'group'} in this tenant` }]);
  await commitChange(
    [
      orConflict(
        putItem(assignmentItem(t, id, assigneeId, input.type, userName), 'attribute_not_exists(pk)'),
        'This assignee is already assigned',
      ),
      r.assignedToId ? null : unchangedStatus(t, r, { assignedToId: assigneeId }),
    ],
    change(t, actor, id, 'assign', { assigneeId, type: input.type }),
  );
  return biaDetail(t, id);
}

export async function unassign(t: string, id: string, assigneeId: string, actor: Principal) {
  const r = await getBia(t, id);
  assertEditable(r);
  const key = bia.assignmentKey(t, id, assigneeId);
  await getOr404(key, 'Assignment', { consistent: true });
  await commitChange(
    [orConflict(deleteItem(key, 'attribute_exists(pk)'), 'The assignment was removed meanwhile')],
    change(t, actor, id, 'unassign', { assigneeId }),
  );
}

/**
 * Deletes the children first (entries, assignments, counters), then the BIA in one transaction
 * with its counter, stats and audit entry: an interrupted delete leaves the BIA in place and a
 * retry removes the rest, so nothing is ever orphaned.
 */
export async function deleteBia(t: string, id: string, actor: Principal) {
  const r = await getBia(t, id);
  const [entries, assignments] = await Promise.all([
    childItems<EntryItem>(bia.entries(t, id)),
    childItems<AssignmentItem>(bia.assignments(t, id)),
  ]);
  await deleteAll([...entries, ...assignments].map(keyOf));
  await deleteAll([keys.counter(bia.entries(t, id))]);
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(deleteItem(bia.key(t, id), 'attribute_exists(pk)'), 'The BIA was deleted meanwhile'),
      bumpCounter(bia.collection(t), -1),
      statsAdd(t, {
        biasTotal: -1,
        entriesTotal: -entries.length,
        entriesCompleted: -entries.filter((e) => e.completed === true).length,
      }),
      activityPut(t, ACTIVITY.BiaDeleted, `BIA "${r.title}" deleted`, now),
    ],
    change(t, actor, id, 'delete', { entries: entries.length, assignments: assignments.length }),
    { now },
  );
}

/**
 * Copies a BIA (any status) with its entries, their parts and its assignments into a new Draft
 * BIA that records its version (source + 1) and source. Entry ids are new; process dependencies
 * are remapped to the copies. The children are written first (batches: a BIA may hold hundreds of
 * entries); the new BIA, its entry counter and the stats commit last, so the copy appears whole.
 */
export async function newVersion(t: string, id: string, actor: Principal) {
  const source = await getBia(t, id);
  const [entries, assignments] = await Promise.all([
    childItems<EntryItem>(bia.entries(t, id)),
    childItems<AssignmentItem>(bia.assignments(t, id)),
  ]);
  const now = new Date().toISOString();
  const copy: BiaRecord = {
    ...source,
    id: crypto.randomUUID(),
    status: BIA_STATUS.Draft,
    version: source.version + 1,
    sourceBiaId: source.id,
    createdAt: now,
  };
  const newIds = new Map(entries.map((e) => [e.id, crypto.randomUUID()]));
  const copies = entries.map((e) => {
    const record = entryRecordOf(e);
    const deps = (record.processDependencies ?? []).flatMap((d) => {
      const to = newIds.get(d.id);
      return to ? [{ id: to }] : [];
    });
    return entryItem(t, copy.id, { ...record, id: newIds.get(record.id)!, processDependencies: deps });
  });
  const assignmentCopies = assignments.map((a) => assignmentItem(t, copy.id, a.sk, a.type, a.userName));
  await putAll([...copies, ...assignmentCopies]);
  await commitChange(
    [
      putNew(biaItem(t, copy)),
      bumpCounter(bia.collection(t), 1),
      copies.length ? updateItem(keys.counter(bia.entries(t, copy.id)), {}, { add: { count: copies.length } }) : null,
      statsAdd(t, {
        biasTotal: 1,
        entriesTotal: copies.length,
        entriesCompleted: copies.filter((e) => e.completed).length,
      }),
      activityPut(t, ACTIVITY.BiaCreated, `BIA "${copy.title}" version ${copy.version} created`, now),
    ],
    change(t, actor, copy.id, 'new-version', {
      sourceBiaId: source.id,
      version: copy.version,
      entries: copies.length,
    }),
    { now },
  );
  return toBiaDetail(copy, assignmentCopies, copies);
}

/** Whether the BIA exists (for a 404 that tells a missing BIA from a missing child). */
export const biaExists = async (t: string, id: string) => !!(await get(bia.key(t, id), { attributes: ['pk'] }));
