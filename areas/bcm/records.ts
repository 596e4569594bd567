import { putItem, updateItem, type TransactItem } from '#shared/data/commit.ts';
import { COUNTER_SK, keys } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { config } from '#shared/platform/config.ts';
import { ITEM_PART_FIELDS, type ItemPartField } from './parts.ts';
import { impactScoreOf, isOpenAction } from './states.ts';

/**
 * The BCM area's records: key shapes, stored items and their mappers to the API's shapes.
 * BIAs and risks are tenant items; entries, assignments, assessments and actions live in child
 * partitions of their parent; the tenant's BCM stats, thresholds and activity log in its
 * BCM_CONFIG collection.
 */
export const bia = {
  key: (tenantId: string, id: string) => keys.tenantItem(tenantId, 'BIA', id),
  collection: (tenantId: string) => keys.tenantCollection(tenantId, 'BIA'),
  entries: (tenantId: string, biaId: string) => keys.childCollection(tenantId, 'BIA', biaId, 'ENTRY'),
  entryKey: (tenantId: string, biaId: string, id: string) => keys.childItem(tenantId, 'BIA', biaId, 'ENTRY', id),
  assignments: (tenantId: string, biaId: string) => keys.childCollection(tenantId, 'BIA', biaId, 'ASSIGN'),
  assignmentKey: (tenantId: string, biaId: string, assigneeId: string) =>
    keys.childItem(tenantId, 'BIA', biaId, 'ASSIGN', assigneeId),
};
export const risk = {
  key: (tenantId: string, id: string) => keys.tenantItem(tenantId, 'RISK', id),
  collection: (tenantId: string) => keys.tenantCollection(tenantId, 'RISK'),
  assessments: (tenantId: string, riskId: string) => keys.childCollection(tenantId, 'RISK', riskId, 'ASSESS'),
  assessmentKey: (tenantId: string, riskId: string, id: string) =>
    keys.childItem(tenantId, 'RISK', riskId, 'ASSESS', id),
  actions: (tenantId: string, riskId: string) => keys.childCollection(tenantId, 'RISK', riskId, 'ACTION'),
  actionKey: (tenantId: string, riskId: string, id: string) => keys.childItem(tenantId, 'RISK', riskId, 'ACTION', id),
};
export const bcmConfig = {
  stats: (tenantId: string) => keys.tenantItem(tenantId, 'BCM_CONFIG', 'stats'),
  thresholds: (tenantId: string) => keys.tenantItem(tenantId, 'BCM_CONFIG', 'impact-thresholds'),
  activity: (tenantId: string) => keys.childCollection(tenantId, 'BCM_CONFIG', 'activity', 'LOG'),
  /** gsi2 partition of open tasks (incomplete entries and open actions with a due date), soonest first. */
  tasks: (tenantId: string) => `${keys.tenantCollection(tenantId, 'BCM_CONFIG')}#TASKS`,
};

/** An item's table key, as a type alias (stored item types must be plain records for the write builders). */
type Key = { pk: string; sk: string };

/** The attributes that put an item in the tenant's task index. */
const taskIndex = (tenantId: string, dueAt: string, id: string) => ({
  gsi2pk: bcmConfig.tasks(tenantId),
  gsi2sk: `${dueAt}#${id}`,
});

/** Every item of a child partition except its counter, consistently read. */
export const childItems = async <T>(pk: string): Promise<T[]> =>
  (
    await queryItems<T & Key>({
      TableName: config.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ConsistentRead: true,
    })
  ).filter((i) => i.sk !== COUNTER_SK);

const byCreated = (a: { createdAt: string }, b: { createdAt: string }) => a.createdAt.localeCompare(b.createdAt);

// ---- BIA ----

export type BiaRecord = {
  id: string;
  title: string;
  description: string | null;
  status: number;
  assignedToId: string | null;
  version: number;
  sourceBiaId: string | null;
  createdAt: string;
};
export type BiaItem = Key & BiaRecord & { tenantId: string };

export const biaItem = (tenantId: string, r: BiaRecord): BiaItem & ReturnType<typeof keys.newestFirst> => ({
  ...bia.key(tenantId, r.id),
  ...keys.newestFirst(bia.collection(tenantId), r.createdAt, r.id),
  ...r,
  tenantId,
});

export const toBia = (i: BiaItem): BiaRecord => ({
  id: i.id,
  title: i.title,
  description: i.description ?? null,
  status: Number(i.status ?? 0),
  assignedToId: i.assignedToId ?? null,
  version: Number(i.version ?? 1),
  sourceBiaId: i.sourceBiaId ?? null,
  createdAt: i.createdAt,
});

/** An assignment's sort key is the assignee's id (a user or group of the tenant). */
export type AssignmentItem = Key & {
  type: number;
  userName: string;
};
export const assignmentItem = (
  tenantId: string,
  biaId: string,
  assigneeId: string,
  type: number,
  userName: string,
) => ({
  ...bia.assignmentKey(tenantId, biaId, assigneeId),
  type,
  userName,
});
const toAssignment = (a: AssignmentItem) => ({ userId: a.sk, userName: a.userName, type: Number(a.type) });

// ---- BIA entries ----

type PartItems = Record<string, unknown>[];
export type EntryRecord = Partial<Record<ItemPartField, PartItems>> & {
  id: string;
  briefDescription: string;
  completeAt: string | null;
  createdAt: string;
  processDependencies?: { id: string }[];
};
export type EntryItem = Key &
  EntryRecord & { biaId: string; completed: boolean; revision?: number; gsi2pk?: string; dueAt?: string };

/**
 * An entry is complete once its completeAt has passed when it is written (or it was completed);
 * a completeAt still ahead is its due date, and the entry sits in the tenant's task index.
 */
export const isComplete = (completeAt: string | null, now = new Date().toISOString()) =>
  !!completeAt && completeAt <= now;

/** The record fields of a stored entry (its keys and index attributes left behind). */
export function entryRecordOf(i: EntryItem): EntryRecord {
  const parts = Object.fromEntries(ITEM_PART_FIELDS.flatMap((f) => (i[f] ? [[f, i[f]]] : [])));
  return {
    id: i.id,
    briefDescription: i.briefDescription,
    completeAt: i.completeAt ?? null,
    createdAt: i.createdAt,
    ...parts,
    ...(i.processDependencies ? { processDependencies: i.processDependencies } : {}),
  };
}

/** The stored entry: parts inline (one GetItem for the detail). */
export function entryItem(tenantId: string, biaId: string, r: EntryRecord): EntryItem {
  const pk = bia.entries(tenantId, biaId);
  const completed = isComplete(r.completeAt);
  return {
    ...r,
    ...bia.entryKey(tenantId, biaId, r.id),
    ...keys.newestFirst(pk, r.createdAt, r.id),
    biaId,
    completed,
    ...(r.completeAt && !completed ? { ...taskIndex(tenantId, r.completeAt, `E#${r.id}`), dueAt: r.completeAt } : {}),
  };
}

export const toBrief = (i: Pick<EntryRecord, 'id' | 'briefDescription' | 'completeAt'>) => ({
  id: i.id,
  briefDescription: i.briefDescription,
  completeAt: i.completeAt ?? null,
});

/** The detail: every part list present; process dependencies with the titles of the entries they name. */
export const toEntryDetail = (i: EntryRecord, titleOf: (id: string) => string) => ({
  ...toBrief(i),
  digitalAssets: i.digitalAssets ?? [],
  printedAssets: i.printedAssets ?? [],
  communicationSystems: i.communicationSystems ?? [],
  productionSystems: i.productionSystems ?? [],
  equipmentAssets: i.equipmentAssets ?? [],
  supplierDependencies: i.supplierDependencies ?? [],
  recoveryStrategies: i.recoveryStrategies ?? [],
  processDependencies: (i.processDependencies ?? []).map((d) => ({ id: d.id, title: titleOf(d.id) })),
});

export const toBiaDetail = (r: BiaRecord, assignments: AssignmentItem[], entries: EntryRecord[]) => ({
  ...r,
  assignments: assignments.map(toAssignment),
  entries: [...entries].sort(byCreated).map(toBrief),
});

// ---- Risks, assessments, mitigation actions ----

export type RiskItem = Key & {
  id: string;
  tenantId: string;
  title: string;
  description: string | null;
  category: number;
  level: number;
  status: number;
  probabilityScore: number;
  impactScore: number;
  createdAt: string;
  revision?: number;
};

export const riskItem = (tenantId: string, r: Omit<RiskItem, keyof Key | 'tenantId' | 'revision'>) => ({
  ...risk.key(tenantId, r.id),
  ...keys.newestFirst(risk.collection(tenantId), r.createdAt, r.id),
  ...r,
  tenantId,
  revision: 0,
});

export const toRisk = (i: RiskItem) => ({
  id: i.id,
  title: i.title,
  category: Number(i.category),
  level: Number(i.level),
  status: Number(i.status),
  probabilityScore: Number(i.probabilityScore ?? 1),
  impactScore: Number(i.impactScore ?? impactScoreOf(Number(i.level))),
  createdAt: i.createdAt,
});

export type AssessmentItem = Key & {
  id: string;
  /** Stored since the create answers the assessment; older items take it from their key. */
  riskId?: string;
  name: string;
  score: number;
  createdAt: string;
};
export const assessmentItem = (
  tenantId: string,
  riskId: string,
  r: Omit<AssessmentItem, keyof Key>,
): AssessmentItem => ({
  ...risk.assessmentKey(tenantId, riskId, r.id),
  ...r,
  riskId,
});
export const toAssessment = (a: AssessmentItem, riskId: string) => ({
  id: a.id,
  riskId,
  name: a.name,
  score: Number(a.score),
  createdAt: a.createdAt,
});

export type ActionRecord = {
  id: string;
  assessmentId: string;
  title: string;
  description: string | null;
  status: number;
  dueAt: string | null;
  createdAt: string;
};
export type ActionItem = Key & ActionRecord;

/** An open action with a due date is a dashboard task. */
export const actionItem = (tenantId: string, riskId: string, r: ActionRecord) => ({
  ...risk.actionKey(tenantId, riskId, r.id),
  ...r,
  ...(r.dueAt && isOpenAction(r.status) ? { ...taskIndex(tenantId, r.dueAt, `A#${r.id}`), dueAt: r.dueAt } : {}),
});
/** The action's new fields, conditional on the status read; it leaves the task index once closed or undated. */
export function actionUpdate(tenantId: string, riskId: string, r: ActionRecord, wasStatus: number): TransactItem {
  const task = !!r.dueAt && isOpenAction(r.status);
  const { id: _, createdAt: _c, ...fields } = r;
  return updateItem(
    risk.actionKey(tenantId, riskId, r.id),
    { ...fields, ...(task ? taskIndex(tenantId, r.dueAt!, `A#${r.id}`) : {}) },
    {
      remove: task ? [] : ['gsi2pk', 'gsi2sk'],
      condition: '#was = :was',
      names: { '#was': 'status' },
      values: { ':was': wasStatus },
    },
  );
}
export const toActionRecord = (a: ActionItem): ActionRecord => ({
  id: a.id,
  assessmentId: a.assessmentId,
  title: a.title,
  description: a.description ?? null,
  status: Number(a.status),
  dueAt: a.dueAt ?? null,
  createdAt: a.createdAt,
});
export const toAction = (a: ActionRecord, riskId: string) => ({ ...a, riskId });

export const toRiskDetail = (i: RiskItem, assessments: AssessmentItem[], actions: ActionItem[]) => ({
  ...toRisk(i),
  description: i.description ?? null,
  risks: [...assessments].sort(byCreated).map((a) => ({ id: a.id, name: a.name, score: Number(a.score) })),
  mitigationActions: [...actions].sort(byCreated).map((a) => ({
    id: a.id,
    title: a.title,
    status: Number(a.status),
    assessmentId: a.assessmentId,
    dueAt: a.dueAt ?? null,
  })),
});

// ---- Stats, activity, thresholds ----

/** Adds to counters of the tenant's BCM stats item (biasTotal, entries, open risks by level); null when all are 0. */
export function statsAdd(tenantId: string, deltas: Record<string, number>): TransactItem | null {
  const add = Object.fromEntries(Object.entries(deltas).filter(([, v]) => v !== 0));
  return Object.keys(add).length ? updateItem(bcmConfig.stats(tenantId), {}, { add }) : null;
}

/** Open (not Closed) risks are counted by level in the BCM stats: `openRisks<level>`. */
export const openRiskCounter = (level: number) => `openRisks${level}`;

export type BcmStats = Partial<Record<string, number>>;

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

export type ActivityItem = Key & {
  activityType: number;
  description: string;
  createdAt: string;
};
export function activityPut(tenantId: string, activityType: number, description: string, now: string): TransactItem {
  const sk = crypto.randomUUID();
  const pk = bcmConfig.activity(tenantId);
  return putItem({
    pk,
    sk,
    ...keys.newestFirst(pk, now, sk),
    activityType,
    description,
    createdAt: now,
    ttl: Math.floor(Date.parse(now) / 1000) + ACTIVITY_TTL_SECONDS,
  });
}
export const toActivity = (a: ActivityItem) => ({
  activityType: Number(a.activityType),
  description: String(a.description),
  createdAt: String(a.createdAt),
});
/** A task: an incomplete entry (its briefDescription) or an open action (its title) with a due date. */
export const toTask = (x: { briefDescription?: string; title?: string; dueAt?: string }) => ({
  title: String(x.briefDescription ?? x.title),
  dueAt: String(x.dueAt),
});

export type Threshold = { dimension: number; score: number; description: string };
export type ThresholdsItem = Key & {
  thresholds: Threshold[];
};
export const thresholdsItem = (tenantId: string, thresholds: Threshold[]): ThresholdsItem => ({
  ...bcmConfig.thresholds(tenantId),
  thresholds,
});
