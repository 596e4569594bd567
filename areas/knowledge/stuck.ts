import { get } from '#shared/data/read.ts';
import { queryItems } from '#shared/data/query.ts';
import { config } from '#shared/platform/config.ts';
import { documentKey, pendingIndex, type DocumentRecord } from './records.ts';
import { isMoved, markFailed } from './status.ts';

const running = (d: DocumentRecord) => d.status === 'Queued' || d.status === 'Processing';
const stuckReason = (d: DocumentRecord) =>
  `Indexing did not finish in time: the document stayed ${d.status} past its deadline (${d.stageDeadline}); upload it again`;

/** The document as it should be shown: past its stage deadline it ends Failed (once; a move meanwhile wins). */
export async function failIfStuck(d: DocumentRecord, now = Date.now()): Promise<DocumentRecord> {
  if (!running(d) || !d.stageDeadline || Date.parse(d.stageDeadline) >= now) return d;
  try {
    return await markFailed(d, stuckReason(d));
  } catch (err) {
    if (!isMoved(err)) throw err;
    return (await get<DocumentRecord>(documentKey(d.tenantId, d.kbId, d.id), { consistent: true })) ?? d;
  }
}

/**
 * The scheduler's sweep (docs/architecture.md, "The scheduler": every minute): every document past its
 * stage deadline, found on the pending index by deadline (one Query, no Scan), ends Failed.
 */
export async function failStuckDocuments(now = Date.now()): Promise<number> {
  const due = await queryItems<DocumentRecord>({
    TableName: config.tableName,
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :before',
    ExpressionAttributeValues: { ':pk': pendingIndex.pk, ':before': new Date(now).toISOString() },
  });
  let failed = 0;
  for (const d of due) if ((await failIfStuck(d, now)).status === 'Failed' && running(d)) failed++;
  return failed;
}
