import { queryItems } from '#shared/data/query.ts';
import { config } from '#shared/platform/config.ts';
import { ApiError } from '#shared/http/errors.ts';
import { enqueue } from '#shared/queue/messages.ts';
import { logger } from '#shared/runtime/logger.ts';
import { SYNC_SOURCE } from '../messages.ts';
import { dueIndex, type SourceRecord } from './source-records.ts';
import { failIfStuckSource, startSync } from './sync-state.ts';

/** Sources the scheduler takes in one minute; the rest are due still and taken the next. */
const PER_MINUTE = 100;

/**
 * The scheduler's minute for sources (functions/ai-scheduler): every source due on its gsi2 entry
 * (one Query by time, no Scan): a sync past its deadline ends Failed, as a stuck document does, and
 * a source whose syncEvery has come round starts its sync. Answers how many it moved.
 */
export async function runDueSources(now = Date.now()): Promise<number> {
  const due = await queryItems<SourceRecord>(
    {
      TableName: config.tableName,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :before',
      ExpressionAttributeValues: { ':pk': dueIndex.pk, ':before': new Date(now).toISOString() },
    },
    PER_MINUTE,
  );
  let moved = 0;
  for (const s of due) {
    try {
      if (s.syncStatus === 'Running') {
        if ((await failIfStuckSource(s, now)).syncStatus !== 'Running') moved++;
        continue;
      }
      if (s.syncEvery === 'off' || !s.nextSyncAt || Date.parse(s.nextSyncAt) > now) continue;
      const started = await startSync(s, null, now);
      await enqueue(
        SYNC_SOURCE,
        { tenantId: s.tenantId, kbId: s.kbId, sourceId: s.id, syncId: started.syncId! },
        { id: `sync-${started.syncId}` },
      );
      moved++;
    } catch (err) {
      // A sync started by hand meanwhile, or the source deleted: the next minute sees it as it is.
      if (!(err instanceof ApiError && err.status === 409)) throw err;
      logger.info('scheduled source moved meanwhile', { sourceId: s.id });
    }
  }
  return moved;
}
