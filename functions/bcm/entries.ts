import { safeParse } from 'zod/mini';
import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst, putNew } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { notFound, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { BIA_PARTS, PART_FIELDS, PART_ITEMS, type BiaPart } from '#shared/routes/bcm.ts';
import { getBia } from './bias.ts';
import { assertEditable } from './states.ts';
import { ACTIVITY, activityPut, bia, commit, read, readOr404, statsAdd, taskIndex, type Item } from './store.ts';

type PartItems = Record<string, unknown>[];
export interface EntryRecord {
  id: string;
  briefDescription: string;
  completeAt: string | null;
  createdAt: string;
  digitalAssets?: PartItems;
  printedAssets?: PartItems;
  communicationSystems?: PartItems;
  productionSystems?: PartItems;
  equipmentAssets?: PartItems;
  supplierDependencies?: PartItems;
  recoveryStrategies?: PartItems;
  processDependencies?: { id: string }[];
}

export const toBrief = (i: Item) => ({
  id: i.id as string,
  briefDescription: i.briefDescription as string,
  completeAt: (i.completeAt as string | null) ?? null,
});

/**
 * An entry is complete once its completeAt has passed when it is written (or it was completed);
 * a completeAt still ahead is its due date, and the entry sits in the tenant's task index.
 */
export const isComplete = (completeAt: string | null, now = new Date().toISOString()) =>
  !!completeAt && completeAt <= now;

/** The stored entry: parts inline (one GetItem for the detail). */
export function entryItem(t: string, biaId: string, r: EntryRecord) {
  const pk = bia.entries(t, biaId);
  const {
    pk: _pk,
    sk: _sk,
    gsi1pk: _g1,
    gsi1sk: _g1s,
    gsi2pk: _g2,
    gsi2sk: _g2s,
    ...record
  } = r as EntryRecord & Record<string, unknown>;
  const completed = isComplete(r.completeAt);
  return {
    ...record,
    ...bia.entryKey(t, biaId, r.id),
    ...keys.newestFirst(pk, r.createdAt, r.id),
    biaId,
    completed,
    ...(r.completeAt && !completed ? taskIndex(t, r.completeAt, `E#${r.id}`) : {}),
  };
}

/** The detail: every part list present; process dependencies with the titles of the entries they name. */
async function detailOf(t: string, biaId: string, item: Item) {
  const brief = toBrief(item);
  const parts = Object.fromEntries(
    BIA_PARTS.filter((p) => p !== 'process-dependencies').map((p) => [
      PART_FIELDS[p],
      (item[PART_FIELDS[p]] as PartItems) ?? [],
    ]),
  );
  const deps = ((item.processDependencies as { id: string }[]) ?? []).map(async (d) => {
    const other = await readOr404(bia.entryKey(t, biaId, d.id), 'Entry').catch(() => undefined);
    return { id: d.id, title: (other?.briefDescription as string) ?? '' };
  });
  return { ...brief, ...parts, processDependencies: await Promise.all(deps) };
}

const entryKeyOf = (t: string, biaId: string, id: string) => bia.entryKey(t, biaId, id.toLowerCase());
const readEntry = (t: string, biaId: string, id: string) => readOr404(entryKeyOf(t, biaId, id), 'Entry');

/** One read when the entry exists (entries live only under their BIA); the BIA is read only to tell which 404 it is. */
export async function getEntry(t: string, biaId: string, id: string) {
  const item = await read(entryKeyOf(t, biaId, id));
  if (!item) {
    await getBia(t, biaId);
    throw notFound('Entry');
  }
  return detailOf(t, biaId, item);
}

/**
 * Entries exist only under an existing BIA (a delete removes them before the BIA), so the BIA is
 * read, for its 404, only when the list is empty: a page costs the list's two requests.
 */
export async function listEntries(t: string, biaId: string, q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst(bia.entries(t, biaId), q);
  if (!items.length && !totalCount) await getBia(t, biaId);
  return toPage(items.map(toBrief), totalCount, q.page, q.pageSize);
}

export async function createEntry(
  t: string,
  biaId: string,
  input: { briefDescription: string; completeAt?: string | null },
  actor: Principal,
) {
  const b = await getBia(t, biaId);
  assertEditable(b);
  const now = new Date().toISOString();
  const r: EntryRecord = {
    id: crypto.randomUUID(),
    briefDescription: input.briefDescription,
    completeAt: input.completeAt ?? null,
    createdAt: now,
  };
  await commit(
    [
      putNew(entryItem(t, biaId, r)),
      bumpCounter(bia.entries(t, biaId), 1),
      statsAdd(t, { entriesTotal: 1, entriesCompleted: isComplete(r.completeAt) ? 1 : 0 }),
      biaStillEditable(t, biaId),
    ],
    {
      t,
      actor,
      entityType: 'BiaEntry',
      entityId: r.id,
      action: 'create',
      changes: { biaId, briefDescription: r.briefDescription },
    },
    now,
  );
  return detailOf(t, biaId, entryItem(t, biaId, r));
}

/** The BIA must still exist and not be Completed when a child write commits. */
const biaStillEditable = (t: string, biaId: string) => ({
  ConditionCheck: {
    TableName: config.tableName,
    Key: bia.key(t, biaId),
    ConditionExpression: 'attribute_exists(pk) AND #status <> :completed',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':completed': 2 },
  },
});

/** Replaces the stored entry conditionally on the version read (no lost update). */
async function rewrite(
  t: string,
  biaId: string,
  before: Item,
  after: EntryRecord,
  change: { action: string; changes: Record<string, unknown> },
  actor: Principal,
  extra: ReturnType<typeof activityPut>[] = [],
) {
  const b = await getBia(t, biaId);
  assertEditable(b);
  const item = { ...entryItem(t, biaId, after), revision: Number(before.revision ?? 0) + 1 };
  const completedDelta = (item.completed ? 1 : 0) - (before.completed === true ? 1 : 0);
  await commit(
    [
      {
        Put: {
          TableName: config.tableName,
          Item: item,
          ConditionExpression:
            before.revision === undefined
              ? 'attribute_exists(pk) AND attribute_not_exists(revision)'
              : 'revision = :rev',
          ...(before.revision === undefined ? {} : { ExpressionAttributeValues: { ':rev': before.revision } }),
        },
      },
      biaStillEditable(t, biaId),
      statsAdd(t, { entriesCompleted: completedDelta }),
      ...extra,
    ],
    { t, actor, entityType: 'BiaEntry', entityId: after.id, ...change },
  );
  return detailOf(t, biaId, item);
}

export async function updateEntry(
  t: string,
  biaId: string,
  id: string,
  input: { briefDescription?: string | null; completeAt?: string | null },
  actor: Principal,
) {
  const before = await readEntry(t, biaId, id);
  const r = before as unknown as EntryRecord;
  const after = {
    ...r,
    briefDescription: input.briefDescription ?? r.briefDescription,
    completeAt: input.completeAt === undefined || input.completeAt === null ? r.completeAt : input.completeAt,
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
  const r = before as unknown as EntryRecord;
  if (isComplete(r.completeAt)) {
    await getBia(t, biaId);
    return detailOf(t, biaId, before);
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
  const b = await getBia(t, biaId);
  assertEditable(b);
  const key = bia.entryKey(t, biaId, id.toLowerCase());
  const before = await readOr404(key, 'Entry');
  await commit(
    [
      { Delete: { TableName: config.tableName, Key: key, ConditionExpression: 'attribute_exists(pk)' } },
      bumpCounter(bia.entries(t, biaId), -1),
      statsAdd(t, { entriesTotal: -1, entriesCompleted: before.completed === true ? -1 : 0 }),
      biaStillEditable(t, biaId),
    ],
    { t, actor, entityType: 'BiaEntry', entityId: id, action: 'delete', changes: { biaId } },
    undefined,
    'The entry was deleted meanwhile',
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
  if (!(BIA_PARTS as readonly string[]).includes(part)) throw notFound('Entry part');
  const schema = PART_ITEMS()[part as BiaPart];
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
  const r = before as unknown as EntryRecord;
  if (part === 'process-dependencies') {
    const ids = (parsed as { id: string }[]).map((d) => ({ id: d.id.toLowerCase() }));
    for (const [i, d] of ids.entries()) {
      if (d.id === r.id) throw validationError([{ path: `body.${i}.id`, message: 'An entry cannot depend on itself' }]);
      await readOr404(bia.entryKey(t, biaId, d.id), 'Entry').catch(() => {
        throw validationError([{ path: `body.${i}.id`, message: 'Not an entry of this BIA' }]);
      });
    }
    return rewrite(
      t,
      biaId,
      before,
      { ...r, processDependencies: [...new Map(ids.map((d) => [d.id, d])).values()] },
      { action: `update-${part}`, changes: { count: ids.length } },
      actor,
    );
  }
  return rewrite(
    t,
    biaId,
    before,
    { ...r, [PART_FIELDS[part as BiaPart]]: parsed },
    { action: `update-${part}`, changes: { count: parsed.length } },
    actor,
  );
}
