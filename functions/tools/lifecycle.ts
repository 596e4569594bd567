/**
 * Tool lifecycle: a tenant tool starts PENDING; a SystemAdmin approves (APPROVED), activates
 * (ACTIVE) or rejects it (REJECTED). Only ACTIVE tools are offered to agents.
 */
export const TOOL_STATUSES = ['PENDING', 'APPROVED', 'ACTIVE', 'REJECTED'] as const;
export type ToolStatus = (typeof TOOL_STATUSES)[number];
export type ToolAction = 'approve' | 'activate' | 'reject';

const MOVES: Record<ToolAction, Partial<Record<ToolStatus, ToolStatus>>> = {
  approve: { PENDING: 'APPROVED' },
  activate: { APPROVED: 'ACTIVE' },
  reject: { PENDING: 'REJECTED', APPROVED: 'REJECTED' },
};

/** The status a tool moves to, or null when the move is not allowed (409). */
export const nextToolStatus = (from: ToolStatus, action: ToolAction): ToolStatus | null => MOVES[action][from] ?? null;

export const toolMoveTable = () =>
  (Object.keys(MOVES) as ToolAction[]).flatMap((action) =>
    Object.entries(MOVES[action]).map(([from, to]) => ({ action, from: from as ToolStatus, to: to! })),
  );

/** A SystemAdmin has looked at the tool: the states an approval leads to. */
export const isApproved = (status: ToolStatus) => status === 'APPROVED' || status === 'ACTIVE';

/**
 * Db Execute changes data, so it may run with `readOnly: false` only once a SystemAdmin has
 * approved the tool; every other tool may choose freely.
 */
export const writeAccessRefusal = (baseToolCode: string, status: ToolStatus, readOnly: boolean): string | null =>
  baseToolCode === 'db_execute' && !readOnly && !isApproved(status)
    ? 'Db Execute tools can be set to readOnly false only after a SystemAdmin has approved the tool'
    : null;
