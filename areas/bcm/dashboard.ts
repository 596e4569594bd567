import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, putItem } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { validationError } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import {
  bcmConfig,
  openRiskCounter,
  thresholdsItem,
  toActivity,
  toTask,
  type ActivityItem,
  type BcmStats,
  type Threshold,
  type ThresholdsItem,
} from './records.ts';

/**
 * Three DynamoDB requests whatever the tenant's size: the BCM stats item (counters kept in the
 * same transactions as the changes), the 10 soonest open tasks (task index) and the newest 10
 * activities (activity log).
 */
export async function dashboard(tenantId: string) {
  const newest = <T>(partition: string, index: 'gsi1' | 'gsi2', forward: boolean) =>
    queryItems<T>(
      {
        TableName: config.tableName,
        IndexName: index,
        KeyConditionExpression: `${index}pk = :pk`,
        ExpressionAttributeValues: { ':pk': partition },
        ScanIndexForward: forward,
      },
      10,
    );
  const [stats, tasks, activities] = await Promise.all([
    get<BcmStats>(bcmConfig.stats(tenantId), { consistent: true }),
    newest<{ briefDescription?: string; title?: string; dueAt?: string }>(bcmConfig.tasks(tenantId), 'gsi2', true),
    newest<ActivityItem>(bcmConfig.activity(tenantId), 'gsi1', false),
  ]);
  const n = (k: string) => Math.max(0, Number(stats?.[k] ?? 0));
  const total = n('entriesTotal');
  const completed = Math.min(total, n('entriesCompleted'));
  return {
    totalAssessments: n('biasTotal'),
    criticalFunctions: { identified: total, pending: total - completed },
    activeRisks: {
      highImpact: n(openRiskCounter(2)) + n(openRiskCounter(3)),
      mediumImpact: n(openRiskCounter(1)),
      lowImpact: n(openRiskCounter(0)),
    },
    biaProgressOverview: {
      completedEntries: completed,
      totalEntries: total,
      percentageComplete: total ? Math.round((completed / total) * 1000) / 10 : 0,
    },
    recentActivities: activities.map(toActivity),
    upcomingTasks: tasks.map(toTask),
  };
}

/** A new tenant's thresholds: scores 1-5 on dimension 0 (time to recover) until the tenant sets its own. */
const DEFAULT_THRESHOLDS: Threshold[] = [
  { dimension: 0, score: 1, description: 'Negligible: no noticeable effect within a week' },
  { dimension: 0, score: 2, description: 'Minor: workarounds hold for a few days' },
  { dimension: 0, score: 3, description: 'Moderate: customers notice within 2 days' },
  { dimension: 0, score: 4, description: 'Major: contractual or financial damage within 24 hours' },
  { dimension: 0, score: 5, description: 'Severe: must recover within 4 hours' },
];

export async function thresholds(tenantId: string): Promise<Threshold[]> {
  return (
    (await get<ThresholdsItem>(bcmConfig.thresholds(tenantId), { consistent: true }))?.thresholds ?? DEFAULT_THRESHOLDS
  );
}

/** Replaces the list; a repeated (dimension, score) pair is 400. Stored sorted. */
export async function putThresholds(tenantId: string, list: Threshold[], actor: Principal) {
  const sorted = [...list].sort((a, b) => a.dimension - b.dimension || a.score - b.score);
  const repeated = sorted.findIndex(
    (x, i) => i > 0 && sorted[i - 1]!.dimension === x.dimension && sorted[i - 1]!.score === x.score,
  );
  if (repeated > 0)
    throw validationError([
      {
        path: 'body.thresholds',
        message: `Dimension ${sorted[repeated]!.dimension} has score ${sorted[repeated]!.score} twice`,
      },
    ]);
  await commitChange([putItem(thresholdsItem(tenantId, sorted))], {
    tenantId,
    actor,
    entityType: 'BcmConfig',
    entityId: 'impact-thresholds',
    action: 'update',
    changes: { thresholds: sorted.length },
  });
  return sorted;
}
