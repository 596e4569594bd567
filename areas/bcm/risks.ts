import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst, putNew } from '#shared/data/collection.ts';
import {
  checkItem,
  commitChange,
  deleteItem,
  orConflict,
  updateItem,
  type Change,
  type Write,
} from '#shared/data/commit.ts';
import { getOr404 } from '#shared/data/read.ts';
import { notFound } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import {
  ACTIVITY,
  actionItem,
  actionUpdate,
  activityPut,
  assessmentItem,
  childItems,
  keyOf,
  openRiskCounter,
  risk,
  riskItem,
  statsAdd,
  toAction,
  toActionRecord,
  toAssessment,
  toRisk,
  toRiskDetail,
  type ActionItem,
  type ActionRecord,
  type AssessmentItem,
  type RiskItem,
} from './records.ts';
import {
  ACTION_STATUS,
  assertActionMove,
  assertRiskMove,
  impactScoreOf,
  probabilityScoreOf,
  RISK_STATUS,
} from './states.ts';

type Entity = 'Risk' | 'RiskAssessment' | 'MitigationAction';
const change = (
  t: string,
  actor: Principal,
  entityType: Entity,
  entityId: string,
  action: string,
  changes: Change['changes'],
): Change => ({ tenantId: t, actor, entityType, entityId, action, changes });

const readRisk = (t: string, id: string) => getOr404<RiskItem>(risk.key(t, id), 'Risk', { consistent: true });

export async function riskDetail(t: string, id: string) {
  const [item, assessments, actions] = await Promise.all([
    readRisk(t, id),
    childItems<AssessmentItem>(risk.assessments(t, id)),
    childItems<ActionItem>(risk.actions(t, id)),
  ]);
  return toRiskDetail(item, assessments, actions);
}

export async function listRisks(t: string, q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst<RiskItem>(risk.collection(t), q);
  return toPage(items.map(toRisk), totalCount, q.page, q.pageSize);
}

export async function createRisk(
  t: string,
  input: { title: string; description?: string | null; category: number; level: number },
  actor: Principal,
) {
  const now = new Date().toISOString();
  const item = riskItem(t, {
    id: crypto.randomUUID(),
    title: input.title,
    description: input.description || null,
    category: input.category,
    level: input.level,
    status: RISK_STATUS.Identified,
    probabilityScore: 1,
    impactScore: impactScoreOf(input.level),
    createdAt: now,
  });
  await commitChange(
    [
      putNew(item),
      bumpCounter(risk.collection(t), 1),
      statsAdd(t, { [openRiskCounter(input.level)]: 1 }),
      activityPut(t, ACTIVITY.RiskCreated, `Risk "${item.title}" identified`, now),
    ],
    change(t, actor, 'Risk', item.id, 'create', { title: item.title, category: item.category, level: item.level }),
    { now },
  );
  return toRiskDetail(item, [], []);
}

/** Updates the risk item on the revision read: status moves and score recomputations never cross. */
const riskUpdate = (t: string, before: RiskItem, set: Record<string, unknown>): Write => {
  const revision = Number(before.revision ?? 0);
  return orConflict(
    updateItem(
      risk.key(t, before.id),
      { ...set, revision: revision + 1 },
      {
        condition: 'revision = :rev',
        values: { ':rev': revision },
      },
    ),
    'The risk changed meanwhile; try again',
  );
};

export async function setRiskStatus(t: string, id: string, newStatus: number, actor: Principal) {
  const before = await readRisk(t, id);
  const from = Number(before.status);
  assertRiskMove(from, newStatus);
  const openDelta = (from === RISK_STATUS.Closed ? 1 : 0) - (newStatus === RISK_STATUS.Closed ? 1 : 0);
  const now = new Date().toISOString();
  await commitChange(
    [
      riskUpdate(t, before, { status: newStatus }),
      statsAdd(t, { [openRiskCounter(Number(before.level))]: openDelta }),
      activityPut(t, ACTIVITY.RiskStatusChanged, `Risk "${before.title}" moved to status ${newStatus}`, now),
    ],
    change(t, actor, 'Risk', id, 'status', { from, to: newStatus }),
    { now },
  );
  return riskDetail(t, id);
}

/** Every assessment change recomputes probabilityScore in the same transaction. */
const withScores = (t: string, before: RiskItem, scores: number[]) =>
  riskUpdate(t, before, { probabilityScore: probabilityScoreOf(Number(before.level), scores) });

const otherScores = async (t: string, riskId: string, except?: string) =>
  (await childItems<AssessmentItem>(risk.assessments(t, riskId)))
    .filter((a) => a.id !== except)
    .map((a) => Number(a.score));

/** Answers the created assessment (its id included); the risk's new scores show in the risk detail. */
export async function createAssessment(
  t: string,
  riskId: string,
  input: { name: string; score: number },
  actor: Principal,
) {
  const before = await readRisk(t, riskId);
  const now = new Date().toISOString();
  const item = assessmentItem(t, riskId, {
    id: crypto.randomUUID(),
    name: input.name,
    score: input.score,
    createdAt: now,
  });
  const scores = [...(await otherScores(t, riskId)), input.score];
  await commitChange(
    [
      putNew(item),
      withScores(t, before, scores),
      activityPut(
        t,
        ACTIVITY.AssessmentRecorded,
        `Risk "${before.title}" assessed: ${input.name} (${input.score})`,
        now,
      ),
    ],
    change(t, actor, 'RiskAssessment', item.id, 'create', { riskId, name: input.name, score: input.score }),
    { now },
  );
  return toAssessment(item, riskId);
}

const readAssessment = (t: string, riskId: string, id: string) =>
  getOr404<AssessmentItem>(risk.assessmentKey(t, riskId, id), 'Assessment', { consistent: true });

export async function updateAssessment(
  t: string,
  riskId: string,
  id: string,
  input: { name?: string | null; score?: number | null },
  actor: Principal,
) {
  const before = await readRisk(t, riskId);
  const current = await readAssessment(t, riskId, id);
  const name = input.name ?? current.name;
  const score = input.score ?? Number(current.score);
  const scores = [...(await otherScores(t, riskId, id)), score];
  await commitChange(
    [
      orConflict(
        updateItem(risk.assessmentKey(t, riskId, id), { name, score }, { condition: 'attribute_exists(pk)' }),
        'The assessment was deleted meanwhile',
      ),
      withScores(t, before, scores),
    ],
    change(t, actor, 'RiskAssessment', id, 'update', { name, score }),
  );
  return riskDetail(t, riskId);
}

/** Deletes the assessment with its actions (at most 90 in the transaction, beside the risk's score update). */
export async function deleteAssessment(t: string, riskId: string, id: string, actor: Principal) {
  const before = await readRisk(t, riskId);
  await readAssessment(t, riskId, id);
  const actions = (await childItems<ActionItem>(risk.actions(t, riskId))).filter((a) => a.assessmentId === id);
  await commitChange(
    [
      orConflict(
        deleteItem(risk.assessmentKey(t, riskId, id), 'attribute_exists(pk)'),
        'The assessment was deleted meanwhile',
      ),
      ...actions.slice(0, 90).map((a) => deleteItem(keyOf(a))),
      withScores(t, before, await otherScores(t, riskId, id)),
    ],
    change(t, actor, 'RiskAssessment', id, 'delete', { riskId, actions: actions.length }),
  );
}

/** Answers the created action (its id included); actions hang under an assessment of the risk. */
export async function createAction(
  t: string,
  riskId: string,
  assessmentId: string,
  input: { title: string; description?: string | null; status?: number | null; dueAt?: string | null },
  actor: Principal,
) {
  await readRisk(t, riskId);
  await readAssessment(t, riskId, assessmentId);
  const now = new Date().toISOString();
  const record: ActionRecord = {
    id: crypto.randomUUID(),
    assessmentId,
    title: input.title,
    description: input.description || null,
    status: input.status ?? ACTION_STATUS.Pending,
    dueAt: input.dueAt ?? null,
    createdAt: now,
  };
  await commitChange(
    [
      putNew(actionItem(t, riskId, record)),
      orConflict(
        checkItem(risk.assessmentKey(t, riskId, assessmentId), 'attribute_exists(pk)'),
        'The assessment was deleted meanwhile',
      ),
      activityPut(t, ACTIVITY.ActionChanged, `Mitigation "${record.title}" added`, now),
    ],
    change(t, actor, 'MitigationAction', record.id, 'create', {
      riskId,
      assessmentId,
      title: record.title,
      status: record.status,
    }),
    { now },
  );
  return toAction(record, riskId);
}

export async function updateAction(
  t: string,
  riskId: string,
  assessmentId: string,
  id: string,
  input: { title?: string | null; description?: string | null; status?: number | null; dueAt?: string | null },
  actor: Principal,
) {
  await readRisk(t, riskId);
  const current = toActionRecord(
    await getOr404<ActionItem>(risk.actionKey(t, riskId, id), 'Mitigation action', { consistent: true }),
  );
  if (current.assessmentId !== assessmentId) throw notFound('Mitigation action');
  const status = input.status ?? current.status;
  assertActionMove(current.status, status);
  const next: ActionRecord = {
    ...current,
    title: input.title ?? current.title,
    description: input.description === undefined ? current.description : input.description || null,
    status,
    dueAt: input.dueAt === undefined ? current.dueAt : input.dueAt,
  };
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(actionUpdate(t, riskId, next, current.status), 'The mitigation action changed meanwhile; try again'),
      activityPut(t, ACTIVITY.ActionChanged, `Mitigation "${next.title}" updated`, now),
    ],
    change(t, actor, 'MitigationAction', id, 'update', {
      title: next.title,
      description: next.description,
      status,
      dueAt: next.dueAt,
    }),
    { now },
  );
  return riskDetail(t, riskId);
}
