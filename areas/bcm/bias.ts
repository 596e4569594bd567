import type { Principal } from '#shared/auth/access-token.ts';
import { deleteAll, putAll } from '#shared/data/batch.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, deleteItem, orConflict, putNew, updateItem, type Change } from '#shared/data/commit.ts';
import { keyOf, keys } from '#shared/data/keys.ts';
import { get, getOr404 } from '#shared/data/read.ts';
import { validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { getGroup, getUser } from '#areas/identity/for-bcm.ts';
import {
  ACTIVITY,
  activityPut,
  assignmentItem,
  bia,
  biaItem,
  childItems,
  entryItem,
  entryRecordOf,
  statsAdd,
  toBia,
  toBiaDetail,
  type AssignmentItem,
  type BiaItem,
  type BiaRecord,
  type EntryItem,
} from './records.ts';
import { ASSIGNEE_TYPE, assertBiaMove, assertEditable, BIA_STATUS } from './states.ts';

const change = (
  tenantId: string,
  actor: Principal,
  entityId: string,
  action: string,
  changes: Change['changes'],
): Change => ({
  tenantId,
  actor,
  entityType: 'Bia',
  entityId,
  action,
  changes,
});

/** The BIA, read consistently (state checks before a change), or 404. */
export const getBia = async (tenantId: string, id: string) =>
  toBia(await getOr404<BiaItem>(bia.key(tenantId, id), 'BIA', { consistent: true }));

export async function biaDetail(tenantId: string, id: string) {
  const [record, entries, assignments] = await Promise.all([
    getBia(tenantId, id),
    childItems<EntryItem>(bia.entries(tenantId, id)),
    childItems<AssignmentItem>(bia.assignments(tenantId, id)),
  ]);
  return toBiaDetail(record, assignments, entries);
}

export async function listBias(tenantId: string, q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst<BiaItem>(bia.collection(tenantId), q);
  return toPage(items.map(toBia), totalCount, q.page, q.pageSize);
}

export async function createBia(
  tenantId: string,
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
      putNew(biaItem(tenantId, record)),
      bumpCounter(bia.collection(tenantId), 1),
      statsAdd(tenantId, { biasTotal: 1 }),
      activityPut(tenantId, ACTIVITY.BiaCreated, `BIA "${record.title}" created`, now),
    ],
    change(tenantId, actor, record.id, 'create', { title: record.title, status: record.status }),
    { now },
  );
  return toBiaDetail(record, [], []);
}

/** Conditional on the status read, so a concurrent status change cannot be overwritten. */
const unchangedStatus = (tenantId: string, r: BiaRecord, set: Record<string, unknown>) =>
  orConflict(
    updateItem(bia.key(tenantId, r.id), set, {
      condition: '#status = :was',
      names: { '#status': 'status' },
      values: { ':was': r.status },
    }),
    'The BIA changed meanwhile; try again',
  );

export async function updateBia(
  tenantId: string,
  id: string,
  input: { title?: string | null; description?: string | null },
  actor: Principal,
) {
  const r = await getBia(tenantId, id);
  assertEditable(r);
  const title = input.title ?? r.title;
  const description = input.description === undefined ? r.description : input.description || null;
  await commitChange(
    [unchangedStatus(tenantId, r, { title, description })],
    change(tenantId, actor, id, 'update', { title, description }),
  );
  return biaDetail(tenantId, id);
}

export async function setBiaStatus(tenantId: string, id: string, newStatus: number, actor: Principal) {
  const r = await getBia(tenantId, id);
  assertBiaMove(r.status, newStatus);
  const now = new Date().toISOString();
  await commitChange(
    [
      unchangedStatus(tenantId, r, { status: newStatus }),
      activityPut(tenantId, ACTIVITY.BiaStatusChanged, `BIA "${r.title}" moved to status ${newStatus}`, now),
    ],
    change(tenantId, actor, id, 'status', { from: r.status, to: newStatus }),
    { now },
  );
  return biaDetail(tenantId, id);
}

/** The assignee must be a user or group of the tenant; the assignment's id is the assignee's. */
export async function assign(tenantId: string, id: string, input: { userId: string; type: number }, actor: Principal) {
  const r = await getBia(tenantId, id);
  assertEditable(r);
  const assigneeId = input.userId;
  const isUser = input.type === ASSIGNEE_TYPE.User;
  const user = isUser ? await getUser(tenantId, assigneeId) : undefined;
  const group = isUser ? undefined : await getGroup(tenantId, assigneeId);
  const userName = user ? `${user.firstName} ${user.lastName}`.trim() : group?.name;
  if (userName === undefined)
    throw validationError([{ path: 'body.userId', message: `No such ${isUser ? 'user' : 'group'} in this tenant` }]);
  await commitChange(
    [
      orConflict(
        putNew(assignmentItem(tenantId, id, assigneeId, input.type, userName)),
        'This assignee is already assigned',
      ),
      r.assignedToId ? null : unchangedStatus(tenantId, r, { assignedToId: assigneeId }),
    ],
    change(tenantId, actor, id, 'assign', { assigneeId, type: input.type }),
  );
  return biaDetail(tenantId, id);
}

export async function unassign(tenantId: string, id: string, assigneeId: string, actor: Principal) {
  const r = await getBia(tenantId, id);
  assertEditable(r);
  const key = bia.assignmentKey(tenantId, id, assigneeId);
  await getOr404(key, 'Assignment', { consistent: true });
  await commitChange(
    [orConflict(deleteItem(key, 'attribute_exists(pk)'), 'The assignment was removed meanwhile')],
    change(tenantId, actor, id, 'unassign', { assigneeId }),
  );
}

/**
 * Deletes the children first (entries, assignments, counters), then the BIA in one transaction
 * with its counter, stats and audit entry: an interrupted delete leaves the BIA in place and a
 * retry removes the rest, so nothing is ever orphaned.
 */
export async function deleteBia(tenantId: string, id: string, actor: Principal) {
  const r = await getBia(tenantId, id);
  const [entries, assignments] = await Promise.all([
    childItems<EntryItem>(bia.entries(tenantId, id)),
    childItems<AssignmentItem>(bia.assignments(tenantId, id)),
  ]);
  await deleteAll([...entries, ...assignments].map(keyOf));
  await deleteAll([keys.counter(bia.entries(tenantId, id))]);
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(deleteItem(bia.key(tenantId, id), 'attribute_exists(pk)'), 'The BIA was deleted meanwhile'),
      bumpCounter(bia.collection(tenantId), -1),
      statsAdd(tenantId, {
        biasTotal: -1,
        entriesTotal: -entries.length,
        entriesCompleted: -entries.filter((e) => e.completed === true).length,
      }),
      activityPut(tenantId, ACTIVITY.BiaDeleted, `BIA "${r.title}" deleted`, now),
    ],
    change(tenantId, actor, id, 'delete', { entries: entries.length, assignments: assignments.length }),
    { now },
  );
}

/**
 * Copies a BIA (any status) with its entries, their parts and its assignments into a new Draft
 * BIA that records its version (source + 1) and source. Entry ids are new; process dependencies
 * are remapped to the copies. The children are written first (batches: a BIA may hold hundreds of
 * entries); the new BIA, its entry counter and the stats commit last, so the copy appears whole.
 */
export async function newVersion(tenantId: string, id: string, actor: Principal) {
  const source = await getBia(tenantId, id);
  const [entries, assignments] = await Promise.all([
    childItems<EntryItem>(bia.entries(tenantId, id)),
    childItems<AssignmentItem>(bia.assignments(tenantId, id)),
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
    return entryItem(tenantId, copy.id, { ...record, id: newIds.get(record.id)!, processDependencies: deps });
  });
  const assignmentCopies = assignments.map((a) => assignmentItem(tenantId, copy.id, a.sk, a.type, a.userName));
  await putAll([...copies, ...assignmentCopies]);
  await commitChange(
    [
      putNew(biaItem(tenantId, copy)),
      bumpCounter(bia.collection(tenantId), 1),
      copies.length
        ? updateItem(keys.counter(bia.entries(tenantId, copy.id)), {}, { add: { count: copies.length } })
        : null,
      statsAdd(tenantId, {
        biasTotal: 1,
        entriesTotal: copies.length,
        entriesCompleted: copies.filter((e) => e.completed).length,
      }),
      activityPut(tenantId, ACTIVITY.BiaCreated, `BIA "${copy.title}" version ${copy.version} created`, now),
    ],
    change(tenantId, actor, copy.id, 'new-version', {
      sourceBiaId: source.id,
      version: copy.version,
      entries: copies.length,
    }),
    { now },
  );
  return toBiaDetail(copy, assignmentCopies, copies);
}

/** Whether the BIA exists (for a 404 that tells a missing BIA from a missing child). */
export const biaExists = async (tenantId: string, id: string) =>
  !!(await get(bia.key(tenantId, id), { attributes: ['pk'] }));
