import type { Principal } from '../../shared/auth/access-token.ts';
import { queryCount, queryItems } from '../../shared/data/query.ts';
import { validationError } from '../../shared/http/errors.ts';
import { config } from '../../shared/platform/config.ts';
import { biaCount } from './bias.ts';
import { bcmConfig, commit, read } from './store.ts';

/**
 * The dashboard from maintained figures: BIA count (collection counter), entries and open risks
 * by level (the BCM stats item), completed entries and upcoming tasks from the due index (entries
 * with a completeAt, ordered by it: past = completed, future = upcoming), recent activities from
 * the area's activity log (newest 10, kept 180 days).
 */
export async function dashboard(t: string) {
  const now = new Date().toISOString();
  const due = { TableName: config.tableName, IndexName: 'gsi2', ExpressionAttributeValues: { ':pk': bcmConfig.due(t), ':now': now } };
  const [bias, stats, completed, upcoming, activities] = await Promise.all([
    biaCount(t),
    read(bcmConfig.stats(t)),
    queryCount({ ...due, KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :now' }),
    queryItems({ ...due, KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk > :now', ScanIndexForward: true }, 10),
    queryItems({ TableName: config.tableName, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': bcmConfig.activity(t) }, ScanIndexForward: false }, 10),
  ]);
  const n = (k: string) => Math.max(0, Number(stats?.[k] ?? 0));
  const total = n('entriesTotal');
  return {
    totalAssessments: bias,
    criticalFunctions: { identified: total, pending: Math.max(0, total - completed) },
    activeRisks: { highImpact: n('openRisks2') + n('openRisks3'), mediumImpact: n('openRisks1'), lowImpact: n('openRisks0') },
    biaProgressOverview: { completedEntries: completed, totalEntries: total, percentageComplete: total ? Math.round((completed / total) * 1000) / 10 : 0 },
    recentActivities: activities.map((a) => ({ activityType: Number(a.activityType), description: String(a.description), createdAt: String(a.createdAt) })),
    upcomingTasks: upcoming.map((e) => ({ title: String(e.briefDescription), dueAt: String(e.completeAt) })),
  };
}

type Threshold = { dimension: number; score: number; description: string };

export async function thresholds(t: string): Promise<Threshold[]> {
  return ((await read(bcmConfig.thresholds(t)))?.thresholds as Threshold[] | undefined) ?? [];
}

/** One threshold per dimension (a repeated dimension is 400), stored sorted by dimension. */
export async function putThresholds(t: string, list: Threshold[], actor: Principal) {
  const sorted = [...list].sort((a, b) => a.dimension - b.dimension);
  const repeated = sorted.findIndex((x, i) => i > 0 && sorted[i - 1]!.dimension === x.dimension);
  if (repeated > 0) throw validationError([{ path: 'body.thresholds', message: `Dimension ${sorted[repeated]!.dimension} appears twice` }]);
  await commit([{ Put: { TableName: config.tableName, Item: { ...bcmConfig.thresholds(t), thresholds: sorted } } }], { t, actor, entityType: 'BcmConfig', entityId: 'impact-thresholds', action: 'update', changes: { thresholds: sorted.length } });
  return sorted;
}
