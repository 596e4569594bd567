import { putNew, type Write } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { timeOrderedId } from '#shared/data/time-ordered-id.ts';
import { config } from '#shared/platform/config.ts';
import { writePausedState } from './paused-state.ts';
import type { PausedTurn, PendingCall } from './runtime.ts';
import type { AgentSnapshot } from './snapshot.ts';

/**
 * A turn that waits for a person (docs/decisions/agents.md, "Approval"): one action item per held
 * call and one paused-turn item with the model's input so far. They sit under the conversation
 * (`{t}#CONVERSATION#{id}#ACTION`, `…#PAUSED`), or under the agent for a playground turn
 * (`{t}#AGENT#{id}#ACTION`). A Pending action also sits on gsi2 `PLATFORM#ACTION_PENDING` by its
 * expiry, so the sweep finds the overdue ones with one Query.
 */
import { actionKey, pausedKey, actionList, pendingEntry, PENDING_ACTIONS, type Owner } from './records.ts';

export type { Owner } from './records.ts';

export const ACTION_STATUSES = ['Pending', 'Approved', 'Rejected', 'Expired', 'Done'] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];

export interface Decider {
  userId: string;
  email: string | null;
}

export interface ActionRecord {
  id: string;
  tenantId: string;
  owner: Owner;
  agentId: string;
  turnId: string;
  toolCallId: string;
  toolId: string;
  tool: string;
  arguments: Record<string, unknown>;
  reason: string | null;
  /** Who the turn answered: the visitor's or channel user's name, or the playground's user. */
  requestedBy: string | null;
  status: ActionStatus;
  requestedAt: string;
  expiresAt: string;
  decidedBy: Decider | null;
  decidedAt: string | null;
  rejectReason: string | null;
  /** What the tool returned (Done), as the model read it. */
  result: string | null;
  resultOk: boolean | null;
  durationMs: number | null;
  /** Why it ended without running, when not by time alone (its tool left the agent). */
  note?: string | null;
}

export interface PausedRecord {
  id: string;
  tenantId: string;
  owner: Owner;
  agent: AgentSnapshot;
  /** PausedTurn as JSON with its schema version (paused-state.ts): the model's input is kept exactly as it was. */
  state: string;
  actionIds: string[];
  decided: number;
  /** Set once by the decision that completes the turn: the one that resumes it. */
  resumedAt: string | null;
  createdAt: string;
  ttl: number;
}

/** A paused turn is kept this long after its last action could expire, then DynamoDB's TTL drops it. */
const KEEP_SECONDS = 30 * 86_400;

export const actionItem = (a: ActionRecord) => ({
  ...actionKey(a.tenantId, a.owner, a.id),
  ...(a.status === 'Pending' ? pendingEntry(a) : {}),
  ...a,
});

/**
 * The writes that hold a paused turn: its state and one Pending action per held call. The caller
 * commits them with its own (the conversation's answer), so the visitor is told exactly when the
 * actions exist.
 */
export function pauseWrites(
  tenantId: string,
  owner: Owner,
  agent: AgentSnapshot,
  paused: PausedTurn,
  requestedBy: string | null,
  now = Date.now(),
): { writes: Write[]; actions: ActionRecord[] } {
  const turnId = crypto.randomUUID();
  const state = writePausedState(paused);
  const at = new Date(now).toISOString();
  const actions = paused.pending.map(
    (p: PendingCall, i): ActionRecord => ({
      id: timeOrderedId(now + i),
      tenantId,
      owner,
      agentId: agent.agentId,
      turnId,
      toolCallId: p.toolCallId,
      toolId: p.toolId,
      tool: p.tool,
      arguments: p.arguments,
      reason: p.reason,
      requestedBy,
      status: 'Pending',
      requestedAt: at,
      expiresAt: new Date(now + p.timeoutMinutes * 60_000).toISOString(),
      decidedBy: null,
      decidedAt: null,
      rejectReason: null,
      result: null,
      resultOk: null,
      durationMs: null,
    }),
  );
  const latest = Math.max(...actions.map((a) => Date.parse(a.expiresAt)));
  const record: PausedRecord = {
    id: turnId,
    tenantId,
    owner,
    agent,
    state,
    actionIds: actions.map((a) => a.id),
    decided: 0,
    resumedAt: null,
    createdAt: at,
    ttl: Math.floor(latest / 1000) + KEEP_SECONDS,
  };
  return {
    writes: [
      putNew({ ...pausedKey(tenantId, owner, turnId), ...record }),
      ...actions.map((a) => putNew(actionItem(a))),
    ],
    actions,
  };
}

/** An owner's actions, newest first: at most `limit` (one Query). */
export const listActions = (tenantId: string, owner: Owner, limit = 100) =>
  queryItems<ActionRecord>(
    {
      TableName: config.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': actionList(tenantId, owner) },
      ScanIndexForward: false,
    },
    limit,
  );

/** Pending actions past their expiry, oldest first, across tenants (the sweep's one Query on gsi2). */
export const overdueActions = (now: string, limit: number) =>
  queryItems<ActionRecord>(
    {
      TableName: config.tableName,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :now',
      ExpressionAttributeValues: { ':pk': PENDING_ACTIONS, ':now': now },
    },
    limit,
  );

/** An action as staff read it. */
export const toAction = (a: ActionRecord, now = Date.now()) => ({
  id: a.id,
  tool: a.tool,
  arguments: a.arguments,
  reason: a.reason,
  requestedBy: a.requestedBy,
  // Past its expiry a Pending action is Expired, whether or not the sweep has written it yet.
  status: a.status === 'Pending' && Date.parse(a.expiresAt) <= now ? ('Expired' as const) : a.status,
  requestedAt: a.requestedAt,
  expiresAt: a.expiresAt,
  decidedBy: a.decidedBy,
  decidedAt: a.decidedAt,
  rejectReason: a.rejectReason,
  result: a.result,
  note: a.note ?? null,
});
