import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, orConflict, updateItem } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { enqueue } from '#shared/queue/messages.ts';
import { SYNC_SOURCE } from '../messages.ts';
import { ApiError, conflict } from '#shared/http/errors.ts';
import { STAGE_DEADLINE_MS } from '../vocabulary.ts';
import { dueOf, emptyProgress, sourceKey, type SourceRecord, type SyncProgress } from './source-records.ts';
import { SYNC_INTERVAL_MS, type SyncStatus } from './source-vocabulary.ts';

/**
 * A source's sync as a state on the source item, each move conditional on the one it expects: one
 * sync at a time (a second start while one runs is 409), a step's progress written only while its
 * sync is the source's, and a sync past its deadline ended Failed by whoever reads it first, as a
 * stuck document is (Queued's 45 minutes until its first step, then 15 minutes from each step).
 */
const at = (ms: number) => new Date(ms).toISOString();
const isMoved = (err: unknown) => err instanceof ApiError && err.status === 409;

export const nextSyncOf = (s: Pick<SourceRecord, 'syncEvery'>, from: number) =>
  s.syncEvery === 'off' ? null : at(from + SYNC_INTERVAL_MS[s.syncEvery]);

const dueWrites = (s: SourceRecord, next: Partial<SourceRecord>) => {
  const entry = dueOf({ ...s, ...next });
  return 'gsi2pk' in entry ? { set: entry, remove: [] } : { set: {}, remove: ['gsi2pk', 'gsi2sk'] };
};

/** Running, under a new sync id, unless one runs and is not past its deadline (then 409). */
export async function startSync(
  s: SourceRecord,
  actor: Pick<Principal, 'userId' | 'email'> | null,
  now = Date.now(),
): Promise<SourceRecord> {
  const next: Partial<SourceRecord> = {
    syncStatus: 'Running',
    syncId: crypto.randomUUID(),
    syncStartedAt: at(now),
    syncDeadline: at(now + STAGE_DEADLINE_MS.Queued),
    syncError: null,
    progress: emptyProgress(),
    updatedAt: at(now),
  };
  const due = dueWrites(s, next);
  await commitChange(
    [
      orConflict(
        updateItem(
          sourceKey(s.tenantId, s.kbId, s.id),
          { ...next, ...due.set },
          {
            remove: [...due.remove, 'stopReason', 'resyncRequested'],
            condition: 'attribute_exists(pk) AND (syncStatus <> :running OR syncDeadline < :now)',
            values: { ':running': 'Running', ':now': at(now) },
          },
        ),
        conflict('A sync of this source is running; wait for it to end'),
      ),
    ],
    {
      tenantId: s.tenantId,
      actor,
      entityType: 'KnowledgeSource',
      entityId: s.id,
      action: 'sync',
      changes: { syncId: next.syncId },
    },
    { now: at(now) },
  );
  return { ...s, ...next };
}

/**
 * A step's progress, and the deadline renewed; false when the sync is no longer the source's (a new
 * one, the source deleted, or ended past its deadline), so the step stops.
 */
export async function writeProgress(s: SourceRecord, syncId: string, progress: SyncProgress, now = Date.now()) {
  const next = { progress, syncDeadline: at(now + STAGE_DEADLINE_MS.Processing), updatedAt: at(now) };
  const due = dueWrites(s, next);
  try {
    await commitChange(
      [
        updateItem(
          sourceKey(s.tenantId, s.kbId, s.id),
          { ...next, ...due.set },
          {
            condition: 'syncId = :sync AND syncStatus = :running',
            values: { ':sync': syncId, ':running': 'Running' },
          },
        ),
      ],
      null,
    );
    return true;
  } catch (err) {
    if (isMoved(err)) return false;
    throw err;
  }
}

/** The sync ends (Completed, Stopped with its reason, Failed), the next scheduled one booked. */
export async function endSync(
  s: SourceRecord,
  syncId: string,
  status: Exclude<SyncStatus, 'Running' | 'Idle'>,
  out: { progress?: SyncProgress; error?: string | null; pageCount?: number },
  now = Date.now(),
) {
  const next: Partial<SourceRecord> = {
    syncStatus: status,
    syncDeadline: null,
    lastSyncAt: at(now),
    syncError: out.error ?? null,
    nextSyncAt: nextSyncOf(s, now),
    updatedAt: at(now),
    ...(out.progress ? { progress: out.progress } : {}),
    ...(out.pageCount !== undefined ? { pageCount: out.pageCount } : {}),
  };
  const due = dueWrites(s, next);
  try {
    await commitChange(
      [
        updateItem(
          sourceKey(s.tenantId, s.kbId, s.id),
          { ...next, ...due.set },
          {
            remove: due.remove,
            condition: 'syncId = :sync AND syncStatus = :running',
            values: { ':sync': syncId, ':running': 'Running' },
          },
        ),
      ],
      {
        tenantId: s.tenantId,
        actor: null,
        entityType: 'KnowledgeSource',
        entityId: s.id,
        action: `sync-${status.toLowerCase()}`,
        changes: { syncId, error: out.error ?? null, ...out.progress, failures: undefined },
      },
      { now: at(now) },
    );
    return { ...s, ...next } as SourceRecord;
  } catch (err) {
    if (isMoved(err)) return null;
    throw err;
  }
}

const stuckReason = (s: SourceRecord) =>
  `The sync did not finish in time: it stayed Running past its deadline (${s.syncDeadline}); start it again`;

/** The source as it should be shown: a sync past its deadline ends Failed (once; a move meanwhile wins). */
export async function failIfStuckSource(s: SourceRecord, now = Date.now()): Promise<SourceRecord> {
  if (s.syncStatus !== 'Running' || !s.syncDeadline || Date.parse(s.syncDeadline) >= now) return s;
  const ended = await endSync(s, s.syncId ?? '', 'Failed', { error: stuckReason(s) }, now);
  return ended ?? (await get<SourceRecord>(sourceKey(s.tenantId, s.kbId, s.id), { consistent: true })) ?? s;
}

/** Marks why the running sync must stop (the month's token allowance used up); the step reads it and stops. */
export async function askToStop(s: Pick<SourceRecord, 'tenantId' | 'kbId' | 'id'>, syncId: string, reason: string) {
  try {
    await commitChange(
      [
        updateItem(
          sourceKey(s.tenantId, s.kbId, s.id),
          { stopReason: reason },
          { condition: 'syncId = :sync AND syncStatus = :running', values: { ':sync': syncId, ':running': 'Running' } },
        ),
      ],
      null,
    );
  } catch (err) {
    if (!isMoved(err)) throw err;
  }
}

/**
 * A sync asked for while one runs (a content site changed meanwhile): the running one is marked, and
 * starts again once it ends, so the change it may have missed is read.
 */
export async function requestSync(s: SourceRecord, actor: Pick<Principal, 'userId' | 'email'> | null) {
  try {
    const started = await startSync(s, actor);
    await enqueue(
      SYNC_SOURCE,
      { tenantId: s.tenantId, kbId: s.kbId, sourceId: s.id, syncId: started.syncId! },
      { id: `sync-${started.syncId}` },
    );
    return started;
  } catch (err) {
    if (!isMoved(err)) throw err;
    await commitChange(
      [
        updateItem(
          sourceKey(s.tenantId, s.kbId, s.id),
          { resyncRequested: true },
          { condition: 'attribute_exists(pk)' },
        ),
      ],
      null,
    ).catch((e) => (isMoved(e) ? undefined : Promise.reject(e)));
    return null;
  }
}

/** After a sync ended: the sync asked for meanwhile starts now. */
export async function resyncIfAsked(s: SourceRecord) {
  const now = await get<SourceRecord & { resyncRequested?: boolean }>(sourceKey(s.tenantId, s.kbId, s.id), {
    consistent: true,
  });
  if (now?.resyncRequested && now.syncStatus !== 'Running') await requestSync(now, null);
}
