import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange } from '#shared/data/commit.ts';
import { findPrompt, forcedVariantVersion, type Variant } from '#areas/prompts/for-agents.ts';
import { get } from '#shared/data/read.ts';
import { notFound, validationError } from '#shared/http/errors.ts';
import { countRequested, decideAction, resumeTurn, type Decision, type Resumable } from './decide-action.ts';
import { noActivePromptVersion } from './errors.ts';
import { listActions, pauseWrites, type ActionRecord, type Owner } from './pending-actions.ts';
import { runTurn, type TurnInput, type TurnResult } from './runtime.ts';
import { agentKey, type AgentSnapshot } from './snapshot.ts';

type AgentItem = Omit<AgentSnapshot, 'agentId' | 'version' | 'promptVersionId'> & {
  id: string;
  deletedAt?: string | null;
};

/** The draft as a snapshot: the agent item's settings with its prompt's Active version. */
async function draftSnapshot(tenantId: string, agentId: string): Promise<AgentSnapshot> {
  const item = await get<AgentItem>(agentKey(tenantId, agentId));
  if (!item || item.deletedAt) throw notFound('Agent');
  const prompt = item.promptId ? await findPrompt(tenantId, item.promptId) : undefined;
  if (!prompt?.activeVersionId || prompt.archivedAt) {
    throw noActivePromptVersion();
  }
  return {
    agentId,
    version: null,
    name: item.name,
    promptId: item.promptId,
    promptVersionId: prompt.activeVersionId,
    modelId: item.modelId,
    temperature: item.temperature ?? null,
    welcomeMessage: item.welcomeMessage ?? null,
    escalation: item.escalation ?? { enabled: false, noAnswerThreshold: 0, maxTurnsBeforeEscalation: null },
    knowledgeBaseIds: item.knowledgeBaseIds ?? [],
    toolIds: item.toolIds ?? [],
  };
}

export interface PlaygroundBody {
  messages?: TurnInput['messages'];
  variables?: Record<string, string>;
  visitorName?: string | null;
  approveActionIds?: string[];
  rejectActionIds?: string[];
  /** Forces a variant of the prompt's running A/B test. */
  variant?: Variant;
}

const pendingOf = (a: ActionRecord) => ({
  id: a.id,
  tool: a.tool,
  arguments: a.arguments,
  reason: a.reason,
  expiresAt: a.expiresAt,
});

/** The answer with the calls it holds for the caller's approval, stored so a second request can decide them. */
async function answer(tenantId: string, owner: Owner, agent: AgentSnapshot, r: TurnResult, actor: Principal) {
  const { paused, untrusted: _, ...rest } = r;
  const promptVersionId = agent.promptVersionId;
  if (!paused) return { ...rest, promptVersionId, pendingActions: [] };
  const held = pauseWrites(tenantId, owner, agent, paused, actor.email ?? actor.userId);
  await commitChange(
    [...held.writes, countRequested(tenantId, agent.agentId, held.actions.length, new Date().toISOString())],
    null,
  );
  return { ...rest, promptVersionId, pendingActions: held.actions.map(pendingOf) };
}

/**
 * Playground: one turn of the draft. A call that waits for approval comes back in `pendingActions`;
 * the caller decides it inline with `approveActionIds` / `rejectActionIds` in the next request,
 * which runs the approved tools once and goes on with the paused turn (its messages are the stored
 * ones; `messages` is then not needed).
 */
export async function playgroundTurn(
  tenantId: string,
  agentId: string,
  body: PlaygroundBody,
  actor: Principal,
  requestId: string,
) {
  const owner: Owner = { kind: 'playground', id: agentId };
  const approve = body.approveActionIds ?? [];
  const reject = body.rejectActionIds ?? [];
  if (approve.length || reject.length) return decideInline(tenantId, owner, approve, reject, actor, requestId);
  if (!body.messages?.length) {
    throw validationError([
      { path: 'body.messages', message: 'Messages, or actions to approve or reject, are required' },
    ]);
  }
  const draft = await draftSnapshot(tenantId, agentId);
  const agent = body.variant
    ? { ...draft, promptVersionId: await forcedVariantVersion(tenantId, draft.promptId, body.variant) }
    : draft;
  const r = await runTurn({
    tenantId,
    agent,
    messages: body.messages,
    variables: body.variables,
    visitor: { name: body.visitorName ?? null },
    caller: { kind: 'agent', agentId },
    requestId,
  });
  return answer(tenantId, owner, agent, r, actor);
}

async function decideInline(
  tenantId: string,
  owner: Owner,
  approve: string[],
  reject: string[],
  actor: Principal,
  requestId: string,
) {
  const both = approve.filter((id) => reject.includes(id));
  if (both.length)
    throw validationError([{ path: 'body.rejectActionIds', message: 'An action is either approved or rejected' }]);
  let resume = null as Resumable | null;
  const decide = async (id: string, decision: Decision) => {
    const out = await decideAction(tenantId, owner, id, decision, actor, requestId);
    // The playground's turn lives in this request: a refusal ends it, the kept turn is not run on.
    if (out.refused) throw out.refused;
    resume = out.resume ?? resume;
  };
  for (const id of approve) await decide(id, { approve: true });
  for (const id of reject) await decide(id, { approve: false, reason: null });
  if (!resume) {
    const waiting = (await listActions(tenantId, owner, 20)).filter((a) => a.status === 'Pending');
    return {
      message: 'Waiting for a decision on the remaining actions of this turn.',
      citations: [],
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      promptVersionId: null,
      pendingActions: waiting.map(pendingOf),
    };
  }
  return answer(tenantId, owner, resume.paused.agent, await resumeTurn(resume, requestId), actor);
}
