import { asRead, nextRevision } from '#shared/data/as-read.ts';
import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import {
  checkItem,
  commitChange,
  deleteItem,
  orConflict,
  putNew,
  updateItem,
  type Change,
  type Write,
} from '#shared/data/commit.ts';
import { keyOf } from '#shared/data/keys.ts';
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
  tenantId: string,
  actor: Principal,
  entityType: Entity,
  entityId: string,
  action: string,
  changes: Change['changes'],
): Change => ({ tenantId, actor, entityType, entityId, action, changes });

const readRisk = (tenantId: string, id: string) =>
  getOr404<RiskItem>(risk.key(tenantId, id), 'Risk', { consistent: true });

export async function riskDetail(tenantId: string, id: string) {
  const [item, assessments, actions] = await Promise.all([
    readRisk(tenantId, id),
    childItems<AssessmentItem>(risk.assessments(tenantId, id)),
    childItems<ActionItem>(risk.actions(tenantId, id)),
  ]);
  return toRiskDetail(item, assessments, actions);
}

export async function listRisks(tenantId: string, q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst<RiskItem>(risk.collection(tenantId), q);
  return toPage(items.map(toRisk), totalCount, q.page, q.pageSize);
}

export async function createRisk(
  tenantId: string,
  input: { title: string; description?: string | null; category: number; level: number },
  actor: Principal,
) {
  const now = new Date().toISOString();
  const item = riskItem(tenantId, {
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
      bumpCounter(risk.collection(tenantId), 1),
      statsAdd(tenantId, { [openRiskCounter(input.level)]: 1 }),
      activityPut(tenantId, ACTIVITY.RiskCreated, `Risk "${item.title}" identified`, now),
    ],
    change(tenantId, actor, 'Risk', item.id, 'create', {
      title: item.title,
      category: item.category,
      level: item.level,
    }),
    { now },
  );
  return toRiskDetail(item, [], []);
}

/** Updates the risk item on the revision read: status moves and score recomputations never cross. */
const riskUpdate = (tenantId: string, before: RiskItem, set: Record<string, unknown>): Write => {
  return orConflict(
    updateItem(risk.key(tenantId, before.id), { ...set, revision: nextRevision(before) }, asRead(before, 'revision')),
    'The risk changed meanwhile; try again',
  );
};

export async function setRiskStatus(tenantId: string, id: string, newStatus: number, actor: Principal) {
  const before = await readRisk(tenantId, id);
  const from = Number(before.status);
  assertRiskMove(from, newStatus);
  const openDelta = (from === RISK_STATUS.Closed ? 1 : 0) - (newStatus === RISK_STATUS.Closed ? 1 : 0);
  const now = new Date().toISOString();
  await commitChange(
    [
      riskUpdate(tenantId, before, { status: newStatus }),
      statsAdd(tenantId, { [openRiskCounter(Number(before.level))]: openDelta }),
      activityPut(tenantId, ACTIVITY.RiskStatusChanged, `Risk "${before.title}" moved to status ${newStatus}`, now),
    ],
    change(tenantId, actor, 'Risk', id, 'status', { from, to: newStatus }),
    { now },
  );
  return riskDetail(tenantId, id);
}

/** Every assessment change recomputes probabilityScore in the same transaction. */
const withScores = (tenantId: string, before: RiskItem, scores: number[]) =>
  riskUpdate(tenantId, before, { probabilityScore: probabilityScoreOf(Number(before.level), scores) });

const otherScores = async (tenantId: string, riskId: string, except?: string) =>
  (await childItems<AssessmentItem>(risk.assessments(tenantId, riskId)))
    .filter((a) => a.id !== except)
    .map((a) => Number(a.score));

/** Answers the created assessment (its id included); the risk's new scores show in the risk detail. */
export async function createAssessment(
  tenantId: string,
  riskId: string,
  input: { name: string; score: number },
  actor: Principal,
) {
  const before = await readRisk(tenantId, riskId);
  const now = new Date().toISOString();
  const item = assessmentItem(tenantId, riskId, {
    id: crypto.randomUUID(),
    name: input.name,
    score: input.score,
    createdAt: now,
  });
  const scores = [...(await otherScores(tenantId, riskId)), input.score];
  await commitChange(
    [
      putNew(item),
      withScores(tenantId, before, scores),
      activityPut(
        tenantId,
        ACTIVITY.AssessmentRecorded,
        `Risk "${before.title}" assessed: ${input.name} (${input.score})`,
        now,
      ),
    ],
    change(tenantId, actor, 'RiskAssessment', item.id, 'create', { riskId, name: input.name, score: input.score }),
    { now },
  );
  return toAssessment(item, riskId);
}

const readAssessment = (tenantId: string, riskId: string, id: string) =>
  getOr404<AssessmentItem>(risk.assessmentKey(tenantId, riskId, id), 'Assessment', { consistent: true });

export async function updateAssessment(
  tenantId: string,
  riskId: string,
  id: string,
  input: { name?: string | null; score?: number | null },
  actor: Principal,
) {
  const before = await readRisk(tenantId, riskId);
  const current = await readAssessment(tenantId, riskId, id);
  const name = input.name ?? current.name;
  const score = input.score ?? Number(current.score);
  const scores = [...(await otherScores(tenantId, riskId, id)), score];
  await commitChange(
    [
      orConflict(
        updateItem(risk.assessmentKey(tenantId, riskId, id), { name, score }, { condition: 'attribute_exists(pk)' }),
        'The assessment was deleted meanwhile',
      ),
      withScores(tenantId, before, scores),
    ],
    change(tenantId, actor, 'RiskAssessment', id, 'update', { name, score }),
  );
  return riskDetail(tenantId, riskId);
}

/** Deletes the assessment with its actions (at most 90 in the transaction, beside the risk's score update). */
export async function deleteAssessment(tenantId: string, riskId: string, id: string, actor: Principal) {
  const before = await readRisk(tenantId, riskId);
  await readAssessment(tenantId, riskId, id);
  const actions = (await childItems<ActionItem>(risk.actions(tenantId, riskId))).filter((a) => a.assessmentId === id);
  await commitChange(
    [
      orConflict(
        deleteItem(risk.assessmentKey(tenantId, riskId, id), 'attribute_exists(pk)'),
        'The assessment was deleted meanwhile',
      ),
      ...actions.slice(0, 90).map((a) => deleteItem(keyOf(a))),
      withScores(tenantId, before, await otherScores(tenantId, riskId, id)),
    ],
    change(tenantId, actor, 'RiskAssessment', id, 'delete', { riskId, actions: actions.length }),
  );
}

/** Answers the created action (its id included); actions hang under an assessment of the risk. */
export async function createAction(
  tenantId: string,
  riskId: string,
  assessmentId: string,
  input: { title: string; description?: string | null; status?: number | null; dueAt?: string | null },
  actor: Principal,
) {
  await readRisk(tenantId, riskId);
  await readAssessment(tenantId, riskId, assessmentId);
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
      putNew(actionItem(tenantId, riskId, record)),
      orConflict(
        checkItem(risk.assessmentKey(tenantId, riskId, assessmentId), 'attribute_exists(pk)'),
        'The assessment was deleted meanwhile',
      ),
      activityPut(tenantId, ACTIVITY.ActionChanged, `Mitigation "${record.title}" added`, now),
    ],
    change(tenantId, actor, 'MitigationAction', record.id, 'create', {
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
  tenantId: string,
  riskId: string,
  assessmentId: string,
  id: string,
  input: { title?: string | null; description?: string | null; status?: number | null; dueAt?: string | null },
  actor: Principal,
) {
  await readRisk(tenantId, riskId);
  const current = toActionRecord(
    await getOr404<ActionItem>(risk.actionKey(tenantId, riskId, id), 'Mitigation action', { consistent: true }),
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
      orConflict(
        actionUpdate(tenantId, riskId, next, current.status),
        'The mitigation action changed meanwhile; try again',
      ),
      activityPut(tenantId, ACTIVITY.ActionChanged, `Mitigation "${next.title}" updated`, now),
    ],
    change(tenantId, actor, 'MitigationAction', id, 'update', {
      title: next.title,
      description: next.description,
      status,
      dueAt: next.dueAt,
    }),
    { now },
  );
  return riskDetail(tenantId, riskId);
}
