import { conflict } from '#shared/http/errors.ts';

/** BiaStatus: 0 Draft, 1 InProgress, 2 Completed. */
export const BIA_STATUS = { Draft: 0, InProgress: 1, Completed: 2 } as const;
const BIA_MOVES: Record<number, number[]> = { 0: [1], 1: [2, 0], 2: [] };

/** Risk status (not shown by the spec): 0 Identified, 1 Assessed, 2 Mitigating, 3 Monitoring, 4 Closed. */
export const RISK_STATUS = { Identified: 0, Assessed: 1, Mitigating: 2, Monitoring: 3, Closed: 4 } as const;
const RISK_MOVES: Record<number, number[]> = { 0: [1, 4], 1: [2, 4], 2: [3, 4], 3: [4], 4: [0] };

/** MitigationActionStatus: 0 Pending, 1 InProgress, 2 Completed, 3 Cancelled (the last two are final). */
const ACTION_MOVES: Record<number, number[]> = { 0: [1, 2, 3], 1: [0, 2, 3], 2: [], 3: [] };

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
