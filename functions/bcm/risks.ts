import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst, putNew } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { notFound } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { assertActionMove, assertRiskMove, impactScoreOf, probabilityScoreOf, RISK_STATUS } from './states.ts';
import { ACTIVITY, activityPut, all, commit, readOr404, risk, statsAdd, taskIndex, type Item } from './store.ts';

/** Open (not Closed) risks are counted by level in the BCM stats: `openRisks<level>`. */
const openRisk = (level: number) => `openRisks${level}`;

const toRisk = (i: Item) => ({
  id: i.id as string,
  title: i.title as string,
  category: Number(i.category),
  level: Number(i.level),
  status: Number(i.status),
  probabilityScore: Number(i.probabilityScore ?? 1),
  impactScore: Number(i.impactScore ?? impactScoreOf(Number(i.level))),
  createdAt: i.createdAt as string,
});

const readRisk = (t: string, id: string) => readOr404(risk.key(t, id.toLowerCase()), 'Risk');

export async function riskDetail(t: string, id: string) {
  const [item, assessments, actions] = await Promise.all([
    readRisk(t, id),
    all(risk.assessments(t, id)),
    all(risk.actions(t, id)),
  ]);
  const byCreated = (a: Item, b: Item) => String(a.createdAt).localeCompare(String(b.createdAt));
  return {
    ...toRisk(item),
    description: (item.description as string | null) ?? null,
    risks: assessments
      .sort(byCreated)
      .map((a) => ({ id: a.id as string, name: a.name as string, score: Number(a.score) })),
    mitigationActions: actions.sort(byCreated).map((a) => ({
      id: a.id as string,
      title: a.title as string,
      status: Number(a.status),
      assessmentId: a.assessmentId as string,
      dueAt: (a.dueAt as string | null) ?? null,
    })),
  };
}

export async function listRisks(t: string, q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst(risk.collection(t), q);
  return toPage(items.map(toRisk), totalCount, q.page, q.pageSize);
}

export async function createRisk(
  t: string,
  input: { title: string; description?: string | null; category: number; level: number },
  actor: Principal,
) {
  const now = new Date().toISOString();
  const id = crypto.randomUUID();
  const record = {
    id,
    title: input.title,
    description: input.description || null,
    category: input.category,
    level: input.level,
    status: RISK_STATUS.Identified,
    probabilityScore: 1,
    impactScore: impactScoreOf(input.level),
    createdAt: now,
  };
  await commit(
    [
      putNew({
        ...risk.key(t, id),
        ...keys.newestFirst(risk.collection(t), now, id),
        ...record,
        tenantId: t,
        revision: 0,
      }),
      bumpCounter(risk.collection(t), 1),
      statsAdd(t, { [openRisk(input.level)]: 1 }),
      activityPut(t, ACTIVITY.RiskCreated, `Risk "${record.title}" identified`, now),
    ],
    {
      t,
      actor,
      entityType: 'Risk',
      entityId: id,
      action: 'create',
      changes: { title: record.title, category: record.category, level: record.level },
    },
    now,
  );
  return riskDetail(t, id);
}

/** Updates the risk item on the revision read: status moves and score recomputations never cross. */
function riskUpdate(t: string, before: Item, set: Record<string, unknown>) {
  const names = Object.keys(set);
  return {
    Update: {
      TableName: config.tableName,
      Key: risk.key(t, before.id as string),
      UpdateExpression: `SET ${names.map((n, i) => `#f${i} = :f${i}`).join(', ')}, revision = :next`,
      ConditionExpression: 'revision = :rev',
      ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#f${i}`, n])),
      ExpressionAttributeValues: {
        ...Object.fromEntries(names.map((n, i) => [`:f${i}`, set[n]])),
        ':rev': Number(before.revision ?? 0),
        ':next': Number(before.revision ?? 0) + 1,
      },
    },
  };
}

export async function setRiskStatus(t: string, id: string, newStatus: number, actor: Principal) {
  const before = await readRisk(t, id);
  const from = Number(before.status);
  assertRiskMove(from, newStatus);
  const level = Number(before.level);
  const openDelta = (from === RISK_STATUS.Closed ? 1 : 0) - (newStatus === RISK_STATUS.Closed ? 1 : 0);
  const now = new Date().toISOString();
  await commit(
    [
      riskUpdate(t, before, { status: newStatus }),
      statsAdd(t, { [openRisk(level)]: openDelta }),
      activityPut(t, ACTIVITY.RiskStatusChanged, `Risk "${String(before.title)}" moved to status ${newStatus}`, now),
    ],
    { t, actor, entityType: 'Risk', entityId: before.id as string, action: 'status', changes: { from, to: newStatus } },
    now,
  );
  return riskDetail(t, id);
}

/** Every assessment change recomputes probabilityScore in the same transaction. */
async function withScores(t: string, before: Item, scores: number[]) {
  return riskUpdate(t, before, { probabilityScore: probabilityScoreOf(Number(before.level), scores) });
}

const otherScores = async (t: string, riskId: string, except?: string) =>
  (await all(risk.assessments(t, riskId))).filter((a) => a.id !== except).map((a) => Number(a.score));

export async function createAssessment(
  t: string,
  riskId: string,
  input: { name: string; score: number },
  actor: Principal,
) {
  const before = await readRisk(t, riskId);
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const scores = [...(await otherScores(t, before.id as string)), input.score];
  await commit(
    [
      putNew({
        ...risk.assessmentKey(t, before.id as string, id),
        id,
        name: input.name,
        score: input.score,
        createdAt: now,
      }),
      await withScores(t, before, scores),
      activityPut(
        t,
        ACTIVITY.AssessmentRecorded,
        `Risk "${String(before.title)}" assessed: ${input.name} (${input.score})`,
        now,
      ),
    ],
    {
      t,
      actor,
      entityType: 'RiskAssessment',
      entityId: id,
      action: 'create',
      changes: { riskId: before.id, name: input.name, score: input.score },
    },
    now,
  );
  return riskDetail(t, riskId);
}

export async function updateAssessment(
  t: string,
  riskId: string,
  id: string,
  input: { name?: string | null; score?: number | null },
  actor: Principal,
) {
  const before = await readRisk(t, riskId);
  const key = risk.assessmentKey(t, before.id as string, id.toLowerCase());
  const current = await readOr404(key, 'Assessment');
  const name = input.name ?? (current.name as string);
  const score = input.score ?? Number(current.score);
  const scores = [...(await otherScores(t, before.id as string, current.id as string)), score];
  await commit(
    [
      {
        Update: {
          TableName: config.tableName,
          Key: key,
          UpdateExpression: 'SET #n = :n, score = :s',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#n': 'name' },
          ExpressionAttributeValues: { ':n': name, ':s': score },
        },
      },
      await withScores(t, before, scores),
    ],
    {
      t,
      actor,
      entityType: 'RiskAssessment',
      entityId: current.id as string,
      action: 'update',
      changes: { name, score },
    },
  );
  return riskDetail(t, riskId);
}

export async function deleteAssessment(t: string, riskId: string, id: string, actor: Principal) {
  const before = await readRisk(t, riskId);
  const key = risk.assessmentKey(t, before.id as string, id.toLowerCase());
  const current = await readOr404(key, 'Assessment');
  const actions = (await all(risk.actions(t, before.id as string))).filter((a) => a.assessmentId === current.id);
  await commit(
    [
      { Delete: { TableName: config.tableName, Key: key, ConditionExpression: 'attribute_exists(pk)' } },
      ...actions
        .slice(0, 90)
        .map((a) => ({ Delete: { TableName: config.tableName, Key: { pk: a.pk as string, sk: a.sk as string } } })),
      await withScores(t, before, await otherScores(t, before.id as string, current.id as string)),
    ],
    {
      t,
      actor,
      entityType: 'RiskAssessment',
      entityId: current.id as string,
      action: 'delete',
      changes: { riskId: before.id, actions: actions.length },
    },
  );
}

/** Actions hang under an assessment of the risk; status per MitigationActionStatus. */
/** An open action (Pending, InProgress) with a due date is a dashboard task. */
const actionItem = (
  t: string,
  riskId: string,
  r: { id: string; title: string; status: number; dueAt: string | null } & Item,
) => ({
  ...r,
  ...risk.actionKey(t, riskId, r.id),
  ...(r.dueAt && r.status < 2 ? taskIndex(t, r.dueAt, `A#${r.id}`) : {}),
});

export async function createAction(
  t: string,
  riskId: string,
  assessmentId: string,
  input: { title: string; description?: string | null; status?: number | null; dueAt?: string | null },
  actor: Principal,
) {
  const before = await readRisk(t, riskId);
  const assessment = await readOr404(
    risk.assessmentKey(t, before.id as string, assessmentId.toLowerCase()),
    'Assessment',
  );
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const record = {
    id,
    title: input.title,
    description: input.description || null,
    status: input.status ?? 0,
    assessmentId: assessment.id as string,
    dueAt: input.dueAt ?? null,
    createdAt: now,
  };
  await commit(
    [
      putNew(actionItem(t, before.id as string, record)),
      {
        ConditionCheck: {
          TableName: config.tableName,
          Key: risk.assessmentKey(t, before.id as string, assessment.id as string),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      activityPut(t, ACTIVITY.ActionChanged, `Mitigation "${record.title}" added`, now),
    ],
    {
      t,
      actor,
      entityType: 'MitigationAction',
      entityId: id,
      action: 'create',
      changes: { riskId: before.id, assessmentId: record.assessmentId, title: record.title, status: record.status },
    },
    now,
  );
  return riskDetail(t, riskId);
}

export async function updateAction(
  t: string,
  riskId: string,
  assessmentId: string,
  id: string,
  input: { title?: string | null; description?: string | null; status?: number | null; dueAt?: string | null },
  actor: Principal,
) {
  const before = await readRisk(t, riskId);
  const key = risk.actionKey(t, before.id as string, id.toLowerCase());
  const current = await readOr404(key, 'Mitigation action');
  if (current.assessmentId !== assessmentId.toLowerCase()) throw notFound('Mitigation action');
  const status = input.status ?? Number(current.status);
  assertActionMove(Number(current.status), status);
  const title = input.title ?? (current.title as string);
  const description =
    input.description === undefined ? ((current.description as string | null) ?? null) : input.description || null;
  const dueAt = input.dueAt === undefined ? ((current.dueAt as string | null) ?? null) : input.dueAt;
  const now = new Date().toISOString();
  const { gsi2pk: _p, gsi2sk: _s, dueAt: _d, ...kept } = current;
  await commit(
    [
      {
        Put: {
          TableName: config.tableName,
          Item: actionItem(t, before.id as string, {
            ...kept,
            id: current.id as string,
            title,
            description,
            status,
            dueAt,
          }),
          ConditionExpression: '#s = :was',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':was': Number(current.status) },
        },
      },
      activityPut(t, ACTIVITY.ActionChanged, `Mitigation "${title}" updated`, now),
    ],
    {
      t,
      actor,
      entityType: 'MitigationAction',
      entityId: current.id as string,
      action: 'update',
      changes: { title, description, status, dueAt },
    },
    now,
  );
  return riskDetail(t, riskId);
}
