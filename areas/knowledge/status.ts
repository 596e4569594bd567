import { writeItem } from '#shared/data/write-one.ts';
import { publishEvent } from '#areas/outbound-webhooks/for-knowledge.ts';
import { commitChange, orConflict, updateItem, type Change } from '#shared/data/commit.ts';
import { ApiError, conflict } from '#shared/http/errors.ts';
import { notFound } from '#shared/http/errors.ts';
import { documentKey, kbKey, pendingEntry, type DocumentRecord } from './records.ts';
import type { DocumentStatus } from './vocabulary.ts';

/**
 * Status moves of a document, each conditional on the status it moves from (a delete or another
 * delivery meanwhile makes it a no-op), each with an audit entry (the worker acts as nobody).
 */
const audit = (d: DocumentRecord, action: string, changes: Change['changes']): Change => ({
  tenantId: d.tenantId,
  actor: null,
  entityType: 'KnowledgeDocument',
  entityId: d.id,
  action,
  changes,
});

const moved = () => conflict('The document changed meanwhile');
export const isMoved = (err: unknown) => err instanceof ApiError && err.status === 409;

/** The base item's counter of documents in a status (`queuedCount`...), shown as the base's `documentsByStatus`. */
export const counterOf = (status: DocumentStatus) => `${status.toLowerCase()}Count`;

/**
 * The base's status counters moved with a document (from one status to another; null is none: an
 * upload, a delete), or with `documents` moved together, in the transaction that moves them, so
 * they hold whatever runs at once.
 */
export function countMove(
  d: Pick<DocumentRecord, 'tenantId' | 'kbId'>,
  from: DocumentStatus | null,
  to: DocumentStatus | null,
  also: { set?: Record<string, unknown>; add?: Record<string, number> } = {},
  documents = 1,
) {
  const add: Record<string, number> = { ...also.add };
  if (from) add[counterOf(from)] = (add[counterOf(from)] ?? 0) - documents;
  if (to) add[counterOf(to)] = (add[counterOf(to)] ?? 0) + documents;
  return orConflict(
    updateItem(kbKey(d.tenantId, d.kbId), also.set ?? {}, { add, condition: 'attribute_exists(pk)' }),
    notFound('Knowledge base'),
  );
}

export function statusMove(
  d: DocumentRecord,
  from: DocumentStatus,
  set: Partial<DocumentRecord> & Record<string, unknown>,
  opts: { remove?: string[]; add?: Record<string, number> } = {},
) {
  return orConflict(
    updateItem(documentKey(d.tenantId, d.kbId, d.id), set, {
      remove: opts.remove,
      add: opts.add,
      condition: '#st = :from',
      names: { '#st': 'status' },
      values: { ':from': from },
    }),
    moved(),
  );
}

/** Queued -> Processing, with the Processing deadline (the scheduler's index moves with it). */
export async function markProcessing(d: DocumentRecord, deadline: string): Promise<DocumentRecord> {
  const now = new Date().toISOString();
  const set = { status: 'Processing' as const, progressPercent: 5, stageDeadline: deadline, updatedAt: now };
  await commitChange(
    [statusMove(d, 'Queued', { ...set, ...pendingEntry(deadline, d) }), countMove(d, 'Queued', 'Processing')],
    audit(d, 'start-indexing', {}),
    {
      now,
    },
  );
  return { ...d, ...set };
}

/** Documents of one base moved in one transaction: each move and its audit entry, the base's counters once. */
export const MOVES_PER_COMMIT = 30;

/**
 * Queued -> Processing for documents of one base, MOVES_PER_COMMIT a transaction (the base item,
 * which every upload and move of the base also writes, once a transaction instead of once a
 * document). A transaction refused because one of its documents moved meanwhile is redone one
 * document at a time, so the others still move. Answers the documents that moved.
 */
export async function markProcessingTogether(docs: DocumentRecord[], deadline: string): Promise<DocumentRecord[]> {
  const now = new Date().toISOString();
  const set = { status: 'Processing' as const, progressPercent: 5, stageDeadline: deadline, updatedAt: now };
  const moved: DocumentRecord[] = [];
  for (let i = 0; i < docs.length; i += MOVES_PER_COMMIT) {
    const group = docs.slice(i, i + MOVES_PER_COMMIT);
    try {
      await commitChange(
        [
          ...group.map((d) => statusMove(d, 'Queued', { ...set, ...pendingEntry(deadline, d) })),
          countMove(group[0]!, 'Queued', 'Processing', {}, group.length),
        ],
        group.map((d) => audit(d, 'start-indexing', {})),
        { now },
      );
      moved.push(...group.map((d) => ({ ...d, ...set })));
    } catch (err) {
      if (!isMoved(err)) throw err;
      if (group.length === 1) continue;
      for (const d of group)
        await markProcessing(d, deadline).then(
          (m) => moved.push(m),
          (e) => (isMoved(e) ? undefined : Promise.reject(e)),
        );
    }
  }
  return moved;
}

/** Progress while Processing: not a state change, so no audit entry. */
export async function markProgress(d: DocumentRecord, percent: number): Promise<void> {
  await writeItem(statusMove(d, 'Processing', { progressPercent: Math.min(99, Math.round(percent)) }));
}

/** Ends a Queued or Processing document Failed with a reason a person can act on. */
export async function markFailed(d: DocumentRecord, reason: string): Promise<DocumentRecord> {
  const now = new Date().toISOString();
  const set = {
    status: 'Failed' as const,
    error: reason,
    stageDeadline: null,
    chunkCount: 0,
    tokenCount: 0,
    updatedAt: now,
  };
  await commitChange(
    [statusMove(d, d.status, set, { remove: ['gsi2pk', 'gsi2sk'] }), countMove(d, d.status, 'Failed')],
    audit(d, 'fail-indexing', { error: reason }),
    { now },
  );
  await publishEvent(d.tenantId, 'document.failed', {
    documentId: d.id,
    kbId: d.kbId,
    title: d.title,
    status: 'Failed',
    error: reason,
  });
  return { ...d, ...set };
}
