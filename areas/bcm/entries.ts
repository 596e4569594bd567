import { asRead, nextRevision } from '#shared/data/as-read.ts';
import { safeParse } from 'zod/mini';
import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import {
  checkItem,
  commitChange,
  deleteItem,
  orConflict,
  putItem,
  putNew,
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

const change = (
  tenantId: string,
  actor: Principal,
  entityId: string,
  action: string,
  changes: Change['changes'],
): Change => ({
  tenantId,
  actor,
  entityType: 'BiaEntry',
  entityId,
  action,
  changes,
});

/** The detail, with the titles of the entries its process dependencies name (one read each). */
async function detailOf(tenantId: string, biaId: string, r: EntryRecord) {
  const titles = new Map<string, string>();
  await Promise.all(
    (r.processDependencies ?? []).map(async (d) => {
      const other = await get<EntryItem>(bia.entryKey(tenantId, biaId, d.id), { attributes: ['briefDescription'] });
      titles.set(d.id, other?.briefDescription ?? '');
    }),
  );
  return toEntryDetail(r, (id) => titles.get(id) ?? '');
}

const readEntry = (tenantId: string, biaId: string, id: string) =>
  getOr404<EntryItem>(bia.entryKey(tenantId, biaId, id), 'Entry', { consistent: true });

/** One read when the entry exists (entries live only under their BIA); the BIA is read only to tell which 404 it is. */
export async function getEntry(tenantId: string, biaId: string, id: string) {
  const item = await get<EntryItem>(bia.entryKey(tenantId, biaId, id));
  if (!item) {
    if (!(await biaExists(tenantId, biaId))) throw notFound('BIA');
    throw notFound('Entry');
  }
  return detailOf(tenantId, biaId, entryRecordOf(item));
}

/**
 * Entries exist only under an existing BIA (a delete removes them before the BIA), so the BIA is
 * read, for its 404, only when the list is empty: a page costs the list's two requests.
 */
export async function listEntries(tenantId: string, biaId: string, q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst<EntryItem>(bia.entries(tenantId, biaId), q);
  if (!items.length && !totalCount) await getBia(tenantId, biaId);
  return toPage(items.map(toBrief), totalCount, q.page, q.pageSize);
}

/**
 * The BIA must still exist and not be Completed when a child write commits: the read before the
 * write checked it, and this check holds it against a status change committed in between.
 */
const biaStillEditable = (tenantId: string, biaId: string) =>
  orConflict(
    checkItem(
      bia.key(tenantId, biaId),
      'attribute_exists(pk) AND #status <> :completed',
      { ':completed': BIA_STATUS.Completed },
      {
        '#status': 'status',
      },
    ),
    'The BIA was completed or deleted meanwhile; a Completed BIA is read-only',
  );

export async function createEntry(
  tenantId: string,
  biaId: string,
  input: { briefDescription: string; completeAt?: string | null },
  actor: Principal,
) {
  assertEditable(await getBia(tenantId, biaId));
  const now = new Date().toISOString();
  const r: EntryRecord = {
    id: crypto.randomUUID(),
    briefDescription: input.briefDescription,
    completeAt: input.completeAt ?? null,
    createdAt: now,
  };
  await commitChange(
    [
      putNew(entryItem(tenantId, biaId, r)),
      bumpCounter(bia.entries(tenantId, biaId), 1),
      statsAdd(tenantId, { entriesTotal: 1, entriesCompleted: isComplete(r.completeAt) ? 1 : 0 }),
      biaStillEditable(tenantId, biaId),
    ],
    change(tenantId, actor, r.id, 'create', { biaId, briefDescription: r.briefDescription }),
    { now },
  );
  return toEntryDetail(r, () => '');
}

/** Replaces the stored entry conditionally on the revision read (no lost update). */
async function rewrite(
  tenantId: string,
  biaId: string,
  before: EntryItem,
  after: EntryRecord,
  audit: { action: string; changes: Record<string, unknown> },
  actor: Principal,
  extra: TransactItem[] = [],
) {
  assertEditable(await getBia(tenantId, biaId));
  const item = { ...entryItem(tenantId, biaId, after), revision: nextRevision(before) };
  const completedDelta = (item.completed ? 1 : 0) - (before.completed === true ? 1 : 0);
  const unchanged = putItem(item, asRead(before, 'revision'));
  await commitChange(
    [
      orConflict(unchanged, 'The entry changed meanwhile; try again'),
      biaStillEditable(tenantId, biaId),
      statsAdd(tenantId, { entriesCompleted: completedDelta }),
      ...extra,
    ],
    change(tenantId, actor, after.id, audit.action, audit.changes),
  );
  return detailOf(tenantId, biaId, after);
}

export async function updateEntry(
  tenantId: string,
  biaId: string,
  id: string,
  input: { briefDescription?: string | null; completeAt?: string | null },
  actor: Principal,
) {
  const before = await readEntry(tenantId, biaId, id);
  const r = entryRecordOf(before);
  const after = {
    ...r,
    briefDescription: input.briefDescription ?? r.briefDescription,
    completeAt: input.completeAt ?? r.completeAt,
  };
  return rewrite(
    tenantId,
    biaId,
    before,
    after,
    { action: 'update', changes: { briefDescription: after.briefDescription, completeAt: after.completeAt } },
    actor,
  );
}

/** Sets completeAt to now unless the entry is already complete, which is returned unchanged. */
export async function completeEntry(tenantId: string, biaId: string, id: string, actor: Principal) {
  const before = await readEntry(tenantId, biaId, id);
  const r = entryRecordOf(before);
  if (isComplete(r.completeAt)) {
    await getBia(tenantId, biaId);
    return detailOf(tenantId, biaId, r);
  }
  const now = new Date().toISOString();
  return rewrite(
    tenantId,
    biaId,
    before,
    { ...r, completeAt: now },
    { action: 'complete', changes: { completeAt: now } },
    actor,
    [activityPut(tenantId, ACTIVITY.EntryCompleted, `Entry "${r.briefDescription}" completed`, now)],
  );
}

export async function deleteEntry(tenantId: string, biaId: string, id: string, actor: Principal) {
  assertEditable(await getBia(tenantId, biaId));
  const key = bia.entryKey(tenantId, biaId, id);
  const before = await getOr404<EntryItem>(key, 'Entry', { consistent: true });
  await commitChange(
    [
      orConflict(deleteItem(key, 'attribute_exists(pk)'), 'The entry was deleted meanwhile'),
      bumpCounter(bia.entries(tenantId, biaId), -1),
      statsAdd(tenantId, { entriesTotal: -1, entriesCompleted: before.completed === true ? -1 : 0 }),
      biaStillEditable(tenantId, biaId),
    ],
    change(tenantId, actor, id, 'delete', { biaId }),
  );
}

/** PUT .../{part}: validates every item against the part's schema, then replaces the list. */
export async function replacePart(
  tenantId: string,
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
  const before = await readEntry(tenantId, biaId, id);
  const r = entryRecordOf(before);
  const audit = { action: `update-${part}`, changes: { count: parsed.length } };
  if (part === 'process-dependencies') {
    const named = (parsed as { id: string }[]).map((d) => d.id);
    for (const [i, dep] of named.entries()) {
      if (dep === r.id) throw validationError([{ path: `body.${i}.id`, message: 'An entry cannot depend on itself' }]);
      if (!(await get(bia.entryKey(tenantId, biaId, dep), { attributes: ['pk'] })))
        throw validationError([{ path: `body.${i}.id`, message: 'Not an entry of this BIA' }]);
    }
    const processDependencies = [...new Set(named)].map((dep) => ({ id: dep }));
    return rewrite(tenantId, biaId, before, { ...r, processDependencies }, audit, actor);
  }
  return rewrite(tenantId, biaId, before, { ...r, [PART_FIELDS[part]]: parsed }, audit, actor);
}
