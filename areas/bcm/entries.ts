import { safeParse } from 'zod/mini';
import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst, putNew } from '#shared/data/collection.ts';
import {
  checkItem,
  commitChange,
  deleteItem,
  orConflict,
  putItem,
  type Change,
  type TransactItem,
} from '#shared/data/commit.ts';
import { get, getOr404 } from '#shared/data/read.ts';
import { notFound, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { biaExists, getBia } from './bias.ts';
import { isBiaPart, PART_FIELDS, PART_ITEMS } from './parts.ts';
import {
  ACTIVITY,
  activityPut,
  bia,
  entryItem,
  entryRecordOf,
  isComplete,
  statsAdd,
  toBrief,
  toEntryDetail,
  type EntryItem,
  type EntryRecord,
} from './records.ts';
import { assertEditable, BIA_STATUS } from './states.ts';

const change = (t: string, actor: Principal, entityId: string, action: string, changes: Change['changes']): Change => ({
  tenantId: t,
  actor,
  entityType: 'BiaEntry',
  entityId,
  action,
  changes,
});

/** The detail, with the titles of the entries its process dependencies name (one read each). */
async function detailOf(t: string, biaId: string, r: EntryRecord) {
  const titles = new Map<string, string>();
  await Promise.all(
    (r.processDependencies ?? []).map(async (d) => {
      const other = await get<EntryItem>(bia.entryKey(t, biaId, d.id), { attributes: ['briefDescription'] });
      titles.set(d.id, other?.briefDescription ?? '');
    }),
  );
  return toEntryDetail(r, (id) => titles.get(id) ?? '');
}

const readEntry = (t: string, biaId: string, id: string) =>
  getOr404<EntryItem>(bia.entryKey(t, biaId, id), 'Entry', { consistent: true });

/** One read when the entry exists (entries live only under their BIA); the BIA is read only to tell which 404 it is. */
export async function getEntry(t: string, biaId: string, id: string) {
  const item = await get<EntryItem>(bia.entryKey(t, biaId, id));
  if (!item) {
    if (!(await biaExists(t, biaId))) throw notFound('BIA');
    throw notFound('Entry');
  }
  return detailOf(t, biaId, entryRecordOf(item));
}

/**
 * Entries exist only under an existing BIA (a delete removes them before the BIA), so the BIA is
 * read, for its 404, only when the list is empty: a page costs the list's two requests.
 */
export async function listEntries(t: string, biaId: string, q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst<EntryItem>(bia.entries(t, biaId), q);
  if (!items.length && !totalCount) await getBia(t, biaId);
  return toPage(items.map(toBrief), totalCount, q.page, q.pageSize);
}

/**
 * The BIA must still exist and not be Completed when a child write commits: the read before the
 * write checked it, and this check holds it against a status change committed in between.
 */
const biaStillEditable = (t: string, biaId: string) =>
  orConflict(
    checkItem(
      bia.key(t, biaId),
      'attribute_exists(pk) AND #status <> :completed',
      { ':completed': BIA_STATUS.Completed },
      {
        '#status': 'status',
      },
    ),
    'The BIA was completed or deleted meanwhile; a Completed BIA is read-only',
  );

export async function createEntry(
  t: string,
  biaId: string,
  input: { briefDescription: string; completeAt?: string | null },
  actor: Principal,
) {
  assertEditable(await getBia(t, biaId));
  const now = new Date().toISOString();
  const r: EntryRecord = {
    id: crypto.randomUUID(),
    briefDescription: input.briefDescription,
    completeAt: input.completeAt ?? null,
    createdAt: now,
  };
  await commitChange(
    [
      putNew(entryItem(t, biaId, r)),
      bumpCounter(bia.entries(t, biaId), 1),
      statsAdd(t, { entriesTotal: 1, entriesCompleted: isComplete(r.completeAt) ? 1 : 0 }),
      biaStillEditable(t, biaId),
    ],
    change(t, actor, r.id, 'create', { biaId, briefDescription: r.briefDescription }),
    { now },
  );
  return toEntryDetail(r, () => '');
}

/** Replaces the stored entry conditionally on the revision read (no lost update). */
async function rewrite(
  t: string,
  biaId: string,
  before: EntryItem,
  after: EntryRecord,
  audit: { action: string; changes: Record<string, unknown> },
  actor: Principal,
  extra: TransactItem[] = [],
) {
  assertEditable(await getBia(t, biaId));
  const item = { ...entryItem(t, biaId, after), revision: Number(before.revision ?? 0) + 1 };
  const completedDelta = (item.completed ? 1 : 0) - (before.completed === true ? 1 : 0);
  const unchanged =
    before.revision === undefined
      ? putItem(item, 'attribute_exists(pk) AND attribute_not_exists(revision)')
      : putItem(item, 'revision = :rev', { ':rev': before.revision });
  await commitChange(
    [
      orConflict(unchanged, 'The entry changed meanwhile; try again'),
      biaStillEditable(t, biaId),
      statsAdd(t, { entriesCompleted: completedDelta }),
      ...extra,
    ],
    change(t, actor, after.id, audit.action, audit.changes),
  );
  return detailOf(t, biaId, after);
}

export async function updateEntry(
  t: string,
  biaId: string,
  id: string,
  input: { briefDescription?: string | null; completeAt?: string | null },
  actor: Principal,
) {
  const before = await readEntry(t, biaId, id);
  const r = entryRecordOf(before);
  const after = {
    ...r,
    briefDescription: input.briefDescription ?? r.briefDescription,
    completeAt: input.completeAt ?? r.completeAt,
  };
  return rewrite(
    t,
    biaId,
    before,
    after,
    { action: 'update', changes: { briefDescription: after.briefDescription, completeAt: after.completeAt } },
    actor,
  );
}

/** Sets completeAt to now unless the entry is already complete, which is returned unchanged. */
export async function completeEntry(t: string, biaId: string, id: string, actor: Principal) {
  const before = await readEntry(t, biaId, id);
  const r = entryRecordOf(before);
  if (isComplete(r.completeAt)) {
    await getBia(t, biaId);
    return detailOf(t, biaId, r);
  }
  const now = new Date().toISOString();
  return rewrite(
    t,
    biaId,
    before,
    { ...r, completeAt: now },
    { action: 'complete', changes: { completeAt: now } },
    actor,
    [activityPut(t, ACTIVITY.EntryCompleted, `Entry "${r.briefDescription}" completed`, now)],
  );
}

export async function deleteEntry(t: string, biaId: string, id: string, actor: Principal) {
  assertEditable(await getBia(t, biaId));
  const key = bia.entryKey(t, biaId, id);
  const before = await getOr404<EntryItem>(key, 'Entry', { consistent: true });
  await commitChange(
    [
      orConflict(deleteItem(key, 'attribute_exists(pk)'), 'The entry was deleted meanwhile'),
      bumpCounter(bia.entries(t, biaId), -1),
      statsAdd(t, { entriesTotal: -1, entriesCompleted: before.completed === true ? -1 : 0 }),
      biaStillEditable(t, biaId),
    ],
    change(t, actor, id, 'delete', { biaId }),
  );
}

/** PUT .../{part}: validates every item against the part's schema, then replaces the list. */
export async function replacePart(
  t: string,
  biaId: string,
  id: string,
  part: string,
  items: unknown[],
  actor: Principal,
) {
  if (!isBiaPart(part)) throw notFound('Entry part');
  const schema = PART_ITEMS()[part];
  const issues: { path: string; message: string }[] = [];
  const parsed = items.map((value, i) => {
    const out = safeParse(schema, value);
    if (!out.success)
      issues.push(
        ...out.error.issues.map((x) => ({ path: ['body', i, ...x.path.map(String)].join('.'), message: x.message })),
      );
    return out.success ? out.data : null;
  });
  if (issues.length) throw validationError(issues);
  const before = await readEntry(t, biaId, id);
  const r = entryRecordOf(before);
  const audit = { action: `update-${part}`, changes: { count: parsed.length } };
  if (part === 'process-dependencies') {
    const named = (parsed as { id: string }[]).map((d) => d.id);
    for (const [i, dep] of named.entries()) {
      if (dep === r.id) throw validationError([{ path: `body.${i}.id`, message: 'An entry cannot depend on itself' }]);
      if (!(await get(bia.entryKey(t, biaId, dep), { attributes: ['pk'] })))
        throw validationError([{ path: `body.${i}.id`, message: 'Not an entry of this BIA' }]);
    }
    const processDependencies = [...new Set(named)].map((dep) => ({ id: dep }));
    return rewrite(t, biaId, before, { ...r, processDependencies }, audit, actor);
  }
  return rewrite(t, biaId, before, { ...r, [PART_FIELDS[part]]: parsed }, audit, actor);
}
