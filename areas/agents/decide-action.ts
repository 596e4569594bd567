import { writeItem } from '#shared/data/write-one.ts';
import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, orConflict, updateItem, type Write } from '#shared/data/commit.ts';
import { get, getMany } from '#shared/data/read.ts';
import { keyId } from '#shared/data/keys.ts';
import { notFound, type ApiError } from '#shared/http/errors.ts';
import { logger } from '#shared/runtime/logger.ts';
import { agentDay } from '#areas/analytics/for-agents.ts';
import { functionNamed, readTools } from '#areas/tools/for-agents.ts';
import { actionAlreadyDecided, actionExpired, toolNoLongerOnAgent } from './errors.ts';
import { TOOL_LEFT_NOTE, toolStillOnAgent } from './tool-left-agent.ts';
import { actionKey, pausedKey } from './records.ts';
import type { ActionRecord, ActionStatus, Owner, PausedRecord } from './pending-actions.ts';
import { readPausedState } from './paused-state.ts';
import { callTool, resumeTurnStream, type CallOutcome, type TurnResult } from './runtime.ts';

export type Decision = { approve: true } | { approve: false; reason: string | null };

/** A paused turn whose every call is decided, claimed by this caller to resume it (exactly one caller does). */
export interface Resumable {
  paused: PausedRecord;
  outcomes: Map<string, CallOutcome>;
}

const day = (iso: string) => iso.slice(0, 10);

/** The day's approval counters of the agent (its stats): one decision, and how long it waited. */
const countDecision = (a: ActionRecord, status: 'Approved' | 'Rejected' | 'Expired', at: string): Write =>
  updateItem(
    agentDay(a.tenantId, a.agentId, day(at)),
    {},
    {
      add: {
        [`approvals${status}`]: 1,
        approvalsDecided: 1,
        approvalWaitMs: Math.max(0, Date.parse(at) - Date.parse(a.requestedAt)),
      },
    },
  );

/** The day's count of calls that waited for a person (written with the paused turn). */
export const countRequested = (tenantId: string, agentId: string, n: number, at: string): Write =>
  updateItem(agentDay(tenantId, agentId, day(at)), {}, { add: { approvalsRequested: n } });

/**
 * Moves a Pending action to its decision, once: the condition makes a second decider fail with 409.
 * An action expires by time, or at once with a note when its tool left the agent.
 */
function decisionWrite(
  a: ActionRecord,
  status: 'Approved' | 'Rejected' | 'Expired',
  set: Record<string, unknown>,
  byTime = true,
) {
  const now = set.decidedAt as string;
  const stillOpen = status !== 'Expired' ? 'expiresAt > :now' : byTime ? 'expiresAt <= :now' : ':now = :now';
  return orConflict(
    updateItem(
      actionKey(a.tenantId, a.owner, a.id),
      { ...set, status },
      {
        remove: ['gsi2pk', 'gsi2sk'],
        condition: `#st = :pending AND ${stillOpen}`,
        names: { '#st': 'status' },
        values: { ':pending': 'Pending', ':now': now },
      },
    ),
    actionAlreadyDecided(),
  );
}

const readAction = async (tenantId: string, owner: Owner, id: string) => {
  const a = await get<ActionRecord>(actionKey(tenantId, owner, id), { consistent: true });
  if (!a || a.tenantId !== tenantId) throw notFound('Action');
  return a;
};

/**
 * What a decision did. `refused`: the call did not run and the action is final without a person's
 * decision (it expired); the caller resumes the turn when `resume` says so, then answers the refusal.
 */
export interface DecisionOutcome {
  action: ActionRecord;
  resume: Resumable | null;
  refused?: ApiError;
}

async function refuse(a: ActionRecord, refused: ApiError, note?: string): Promise<DecisionOutcome> {
  let resume: Resumable | null = null;
  try {
    resume = await expireAction(a, Date.now(), note);
  } catch (err) {
    // Decided or expired by someone else meanwhile: their request resumes the turn.
    if (!actionAlreadyDecided.is(err)) throw err;
  }
  return { action: { ...a, status: 'Expired', ...(note ? { note } : {}) }, resume, refused };
}

/**
 * A person's decision on a held call (docs/decisions/agents.md, "Approval"). Exactly once: the
 * decision is a conditional write on the Pending action, so of two racing approvals one wins and
 * runs the tool, the other is told 409. Approved, the tool runs now and the action is Done with its
 * result; the turn resumes once all of its calls are decided (`resume`, for the caller to run).
 */
export async function decideAction(
  tenantId: string,
  owner: Owner,
  actionId: string,
  decision: Decision,
  actor: Principal,
  requestId: string,
): Promise<DecisionOutcome> {
  const a = await readAction(tenantId, owner, actionId);
  const now = new Date().toISOString();
  // Expired before the sweep came: written Expired here, and its turn resumes as the sweep's would.
  if (a.status === 'Pending' && a.expiresAt <= now)
    return refuse(a, a.note === TOOL_LEFT_NOTE ? toolNoLongerOnAgent() : actionExpired());
  if (a.status !== 'Pending')
    throw a.status === 'Expired' && a.note === TOOL_LEFT_NOTE ? toolNoLongerOnAgent() : actionAlreadyDecided(a.status);
  if (decision.approve && !(await toolStillOnAgent(a))) return refuse(a, toolNoLongerOnAgent(), TOOL_LEFT_NOTE);
  const status = decision.approve ? 'Approved' : 'Rejected';
  const rejectReason = decision.approve ? null : decision.reason;
  const decidedBy = { userId: actor.userId, email: actor.email ?? null };
  await commitChange(
    [decisionWrite(a, status, { decidedBy, decidedAt: now, rejectReason }), countDecision(a, status, now)],
    {
      tenantId,
      actor,
      entityType: 'AgentAction',
      entityId: a.id,
      action: decision.approve ? 'approve' : 'reject',
      changes: { status, tool: a.tool, ...(rejectReason ? { reason: rejectReason } : {}) },
    },
  );
  let decided: ActionRecord = { ...a, status, decidedBy, decidedAt: now, rejectReason };
  if (decision.approve) decided = await runApproved(decided, requestId);
  return { action: decided, resume: await claimResume(a) };
}

/**
 * An expired action: rejected by time (or, with a note, because its tool left the agent), audited
 * without a person. Resumes its turn when it was the last.
 */
export async function expireAction(a: ActionRecord, at = Date.now(), note?: string): Promise<Resumable | null> {
  const now = new Date(at).toISOString();
  const set = { decidedAt: now, ...(note ? { note } : {}) };
  await commitChange([decisionWrite(a, 'Expired', set, !note), countDecision(a, 'Expired', now)], {
    tenantId: a.tenantId,
    actor: null,
    entityType: 'AgentAction',
    entityId: a.id,
    action: 'expire',
    changes: { status: 'Expired', tool: a.tool, ...(note ? { note } : {}) },
  });
  return claimResume(a);
}

/** The approved call, run once by the decision that won; its outcome is kept on the action (Done). */
async function runApproved(a: ActionRecord, requestId: string): Promise<ActionRecord> {
  const started = Date.now();
  const [found] = await readTools(a.tenantId, [a.toolId]);
  // An MCP tool's call names its server tool: it runs only while that one is still allowed.
  const tool = found && found.status === 'ACTIVE' && !found.deletedAt ? functionNamed(found, a.tool) : undefined;
  const out = tool
    ? await callTool(tool, a.arguments, {
        tenantId: a.tenantId,
        agent: { agentId: a.agentId } as never,
        requestId,
        ...(a.owner.kind === 'conversation' ? { conversationId: a.owner.id } : {}),
      })
    : { ok: false, text: 'Error: the tool is no longer available; nothing was done.' };
  const durationMs = Date.now() - started;
  await writeItem(
    updateItem(actionKey(a.tenantId, a.owner, a.id), {
      status: 'Done',
      result: out.text,
      resultOk: out.ok,
      durationMs,
    }),
  );
  return { ...a, status: 'Done', result: out.text, resultOk: out.ok, durationMs };
}

const FINAL: ReadonlySet<ActionStatus> = new Set(['Done', 'Rejected', 'Expired']);

function outcomeOf(a: ActionRecord): CallOutcome {
  if (a.status === 'Done') return { ok: !!a.resultOk, text: a.result ?? '', ran: true, durationMs: a.durationMs ?? 0 };
  if (a.status === 'Rejected') {
    const why = a.rejectReason ? ` The reason given: ${a.rejectReason}` : '';
    return { ok: false, text: `A person declined this call; it did not run.${why}`, ran: false, durationMs: 0 };
  }
  return {
    ok: false,
    text: a.note
      ? `This call did not run: ${a.note}`
      : 'No one approved this call in time; it expired and did not run.',
    ran: false,
    durationMs: 0,
  };
}

/**
 * Whether this decision completed its turn, and if so the claim to resume it. Every decider reads
 * the turn's actions after writing its own, so the last one to finish sees them all final; the
 * conditional `resumedAt` makes one of several that do the only one to resume.
 */
async function claimResume(a: ActionRecord): Promise<Resumable | null> {
  const pk = pausedKey(a.tenantId, a.owner, a.turnId);
  const paused = await get<PausedRecord>(pk, { consistent: true });
  if (!paused || paused.resumedAt) return null;
  const keys = paused.actionIds.map((id) => actionKey(a.tenantId, a.owner, id));
  const found = await getMany<ActionRecord>(keys, { consistent: true });
  const all = keys.map((k) => found.get(keyId(k)));
  if (all.some((x) => !x || !FINAL.has(x.status))) return null;
  const at = new Date().toISOString();
  try {
    await writeItem(
      orConflict(
        updateItem(
          pk,
          { resumedAt: at },
          { condition: 'attribute_exists(pk) AND resumedAt = :none', values: { ':none': null } },
        ),
        'resumed elsewhere',
      ),
    );
  } catch (err) {
    logger.info('paused turn resumed by another decision', { turnId: a.turnId, error: (err as Error).message });
    return null;
  }
  const outcomes = new Map(all.map((x) => [x!.toolCallId, outcomeOf(x!)]));
  return { paused: { ...paused, resumedAt: at }, outcomes };
}

/**
 * The one way a paused turn goes on (widget, channel and playground alike, as openai-agents' one
 * re-entry `run(agent, state)`): its stored state read under its schema version, each call's
 * outcome given to the model, the turn run to its end (or to its next pause). The caller stores the
 * result as it stores any turn's.
 */
export async function resumeTurn(
  resume: Resumable,
  requestId: string,
  opts: { conversationId?: string; stream?: boolean } = {},
): Promise<TurnResult> {
  const { paused } = resume;
  const state = readPausedState(paused.state);
  const input = {
    tenantId: paused.tenantId,
    ...(opts.conversationId ? { conversationId: opts.conversationId } : {}),
    agent: paused.agent,
    messages: [],
    caller: { kind: 'agent' as const, agentId: paused.agent.agentId },
    requestId,
  };
  for await (const e of resumeTurnStream(input, state, resume.outcomes, { stream: opts.stream }))
    if (e.type === 'final') return e.result;
  throw new Error('the resumed turn ended without an answer');
}
