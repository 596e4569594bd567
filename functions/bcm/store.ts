import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '#shared/auth/access-token.ts';
import { getItem } from '#shared/data/collection.ts';
import { commitChange, readOr404 } from '#shared/data/commit.ts';
export { deleteAll, putAll } from '#shared/data/batch.ts';
import { COUNTER_SK, keys } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import type { TransactItem } from '#shared/data/transact.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';

/**
 * Key shapes of the BCM area (all through keys.ts): BIAs and risks are tenant items; entries,
 * assignments, assessments and actions live in child partitions of their parent; the tenant's
 * BCM stats, thresholds and activity log in its BCM_CONFIG collection.
 */
export const bia = {
  key: (t: string, id: string) => keys.tenantItem(t, 'BIA', id),
  collection: (t: string) => keys.tenantCollection(t, 'BIA'),
  entries: (t: string, biaId: string) => keys.childCollection(t, 'BIA', biaId, 'ENTRY'),
  entryKey: (t: string, biaId: string, id: string) => keys.childItem(t, 'BIA', biaId, 'ENTRY', id),
  assignments: (t: string, biaId: string) => keys.childCollection(t, 'BIA', biaId, 'ASSIGN'),
  assignmentKey: (t: string, biaId: string, assigneeId: string) =>
    keys.childItem(t, 'BIA', biaId, 'ASSIGN', assigneeId),
};
export const risk = {
  key: (t: string, id: string) => keys.tenantItem(t, 'RISK', id),
  collection: (t: string) => keys.tenantCollection(t, 'RISK'),
  assessments: (t: string, riskId: string) => keys.childCollection(t, 'RISK', riskId, 'ASSESS'),
  assessmentKey: (t: string, riskId: string, id: string) => keys.childItem(t, 'RISK', riskId, 'ASSESS', id),
  actions: (t: string, riskId: string) => keys.childCollection(t, 'RISK', riskId, 'ACTION'),
  actionKey: (t: string, riskId: string, id: string) => keys.childItem(t, 'RISK', riskId, 'ACTION', id),
};
export const bcmConfig = {
  stats: (t: string) => keys.tenantItem(t, 'BCM_CONFIG', 'stats'),
  thresholds: (t: string) => keys.tenantItem(t, 'BCM_CONFIG', 'impact-thresholds'),
  activity: (t: string) => keys.childCollection(t, 'BCM_CONFIG', 'activity', 'LOG'),
  /** gsi2 partition of open tasks (incomplete entries and open actions with a due date), soonest first. */
  tasks: (t: string) => `${keys.tenantCollection(t, 'BCM_CONFIG')}#TASKS`,
};

/** The attributes that put an item in the tenant's task index. */
export const taskIndex = (t: string, dueAt: string, id: string) => ({
  gsi2pk: bcmConfig.tasks(t),
  gsi2sk: `${dueAt}#${id}`,
  dueAt,
});

export type Item = Record<string, unknown>;

export const read = (key: { pk: string; sk: string }) => getItem<Item>(key, true);
export { readOr404 };

/** Every item of a child partition except its counter. */
export const all = async (pk: string) =>
  (
    await queryItems({
      TableName: config.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ConsistentRead: true,
    })
  ).filter((i) => i.sk !== COUNTER_SK);

/** Adds to counters of the tenant's BCM stats item (entries, open risks by level). */
export function statsAdd(t: string, deltas: Record<string, number>): TransactItem | null {
  const entries = Object.entries(deltas).filter(([, v]) => v !== 0);
  if (!entries.length) return null;
  return {
    Update: {
      TableName: config.tableName,
      Key: bcmConfig.stats(t),
      UpdateExpression: `ADD ${entries.map((_, i) => `#s${i} :s${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(entries.map(([k], i) => [`#s${i}`, k])),
      ExpressionAttributeValues: Object.fromEntries(entries.map(([, v], i) => [`:s${i}`, v])),
    },
  };
}

/** Activity types of the dashboard's recent activities. */
export const ACTIVITY = {
  BiaCreated: 0,
  BiaStatusChanged: 1,
  EntryCompleted: 2,
  RiskCreated: 3,
  RiskStatusChanged: 4,
  AssessmentRecorded: 5,
  ActionChanged: 6,
  BiaDeleted: 7,
} as const;
const ACTIVITY_TTL_SECONDS = 180 * 24 * 3600;

export function activityPut(t: string, activityType: number, description: string, now: string): TransactItem {
  const sk = crypto.randomUUID();
  return {
    Put: {
      TableName: config.tableName,
      Item: {
        pk: bcmConfig.activity(t),
        sk,
        ...keys.newestFirst(bcmConfig.activity(t), now, sk),
        activityType,
        description,
        createdAt: now,
        ttl: Math.floor(Date.parse(now) / 1000) + ACTIVITY_TTL_SECONDS,
      },
    },
  };
}

export interface Change {
  t: string;
  actor: Principal;
  entityType: string;
  entityId: string;
  action: string;
  changes: Record<string, unknown> | null;
}

/** One transaction of the change's items plus its audit entry; 409 when a condition failed. */
export const commit = (
  items: (TransactItem | null)[],
  { t, ...change }: Change,
  now?: string,
  conflictMessage?: string,
) => commitChange(items, { ...change, tenantId: t }, now, conflictMessage);

/** A counter adjustment outside a transaction (cascades). */
export async function addCounts(key: { pk: string; sk: string }, deltas: Record<string, number>) {
  const item = statsAdd('', deltas);
  if (!item || !('Update' in item)) return;
  await ddb().send(new UpdateCommand({ ...item.Update!, Key: key } as ConstructorParameters<typeof UpdateCommand>[0]));
}
