import { conflict } from '#shared/http/errors.ts';

/** BiaStatus: 0 Draft, 1 InProgress, 2 Completed. */
export const BIA_STATUS = { Draft: 0, InProgress: 1, Completed: 2 } as const;
const BIA_MOVES: Record<number, number[]> = { 0: [1], 1: [2, 0], 2: [] };

/** Risk status (not shown by the spec): 0 Identified, 1 Assessed, 2 Mitigating, 3 Monitoring, 4 Closed. */
export const RISK_STATUS = { Identified: 0, Assessed: 1, Mitigating: 2, Monitoring: 3, Closed: 4 } as const;
const RISK_MOVES: Record<number, number[]> = { 0: [1, 4], 1: [2, 4], 2: [3, 4], 3: [4], 4: [0] };

/** MitigationActionStatus: 0 Pending, 1 InProgress, 2 Completed, 3 Cancelled (the last two are final). */
export const ACTION_STATUS = { Pending: 0, InProgress: 1, Completed: 2, Cancelled: 3 } as const;
const ACTION_MOVES: Record<number, number[]> = { 0: [1, 2, 3], 1: [0, 2, 3], 2: [], 3: [] };

/** AssigneeType: the assignee of a BIA is a user or a group of the tenant. */
export const ASSIGNEE_TYPE = { User: 0, Group: 1 } as const;

/** The largest value of each integer enum the BCM routes take (all start at 0). */
export const BCM_ENUM_MAX = {
  biaStatus: BIA_STATUS.Completed,
  riskStatus: RISK_STATUS.Closed,
  actionStatus: ACTION_STATUS.Cancelled,
  assigneeType: ASSIGNEE_TYPE.Group,
  /** RiskCategory 0-4, RiskLevel 0-3 (Low, Medium, High, Critical). */
  riskCategory: 4,
  riskLevel: 3,
  /** Impact threshold dimensions 0-9. */
  thresholdDimension: 9,
} as const;
/** Assessment scores are impact × likelihood (1-25); threshold scores 1-5; at most one threshold per dimension. */
export const ASSESSMENT_SCORE = { min: 1, max: 25 } as const;
export const THRESHOLD_SCORE = { min: 1, max: 5 } as const;
export const MAX_THRESHOLDS = BCM_ENUM_MAX.thresholdDimension + 1;

/** An open action (Pending, InProgress) with a due date is a dashboard task. */
export const isOpenAction = (status: number) => status === ACTION_STATUS.Pending || status === ACTION_STATUS.InProgress;

const check = (moves: Record<number, number[]>, what: string) => (from: number, to: number) => {
  if (!moves[from]?.includes(to)) throw conflict(`A ${what} cannot move from status ${from} to ${to}`);
};

export const assertBiaMove = check(BIA_MOVES, 'BIA');
export const assertRiskMove = check(RISK_MOVES, 'risk');
export const assertActionMove = (from: number, to: number) => {
  if (from !== to) check(ACTION_MOVES, 'mitigation action')(from, to);
};

/** A Completed BIA changes only through new-version. */
export function assertEditable(bia: { status: number }) {
  if (bia.status === BIA_STATUS.Completed)
    throw conflict('A Completed BIA is read-only; create a new version to change it');
}

/**
 * Risk scores 1-5. impactScore follows the level (Low 2, Medium 3, High 4, Critical 5);
 * probabilityScore is the highest assessment score (1-25, impact × likelihood) divided by the
 * impact, rounded and kept in 1-5; 1 while the risk has no assessment.
 */
export const impactScoreOf = (level: number) => Math.min(5, Math.max(1, level + 2));
export function probabilityScoreOf(level: number, assessmentScores: number[]) {
  if (!assessmentScores.length) return 1;
  return Math.min(5, Math.max(1, Math.round(Math.max(...assessmentScores) / impactScoreOf(level))));
}
