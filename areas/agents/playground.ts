import { forcedVariantVersion, prompts, type PromptItem, type Variant } from '#areas/prompts/for-agents.ts';
import { get } from '#shared/data/read.ts';
import { notFound } from '#shared/http/errors.ts';
import { noActivePromptVersion } from './errors.ts';
import { runTurn, type TurnInput } from './runtime.ts';
import { agentKey, type AgentSnapshot } from './snapshot.ts';

type AgentItem = Omit<AgentSnapshot, 'agentId' | 'version' | 'promptVersionId'> & {
  id: string;
  deletedAt?: string | null;
};

/** The draft as a snapshot: the agent item's settings with its prompt's Active version. */
async function draftSnapshot(tenantId: string, agentId: string): Promise<AgentSnapshot> {
  const item = await get<AgentItem>(agentKey(tenantId, agentId));
  if (!item || item.deletedAt) throw notFound('Agent');
  const prompt = item.promptId ? await get<PromptItem>(prompts.key(tenantId, item.promptId)) : undefined;
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

export async function playgroundTurn(
  tenantId: string,
  agentId: string,
  body: {
    messages: TurnInput['messages'];
    variables?: Record<string, string>;
    visitorName?: string | null;
    variant?: Variant;
  },
  requestId: string,
) {
  const draft = await draftSnapshot(tenantId, agentId);
  const agent = body.variant
    ? { ...draft, promptVersionId: await forcedVariantVersion(tenantId, draft.promptId, body.variant) }
    : draft;
  const result = await runTurn({
    tenantId,
    agent,
    messages: body.messages,
    variables: body.variables,
    visitor: { name: body.visitorName ?? null },
    caller: { kind: 'agent', agentId },
    requestId,
  });
  return { ...result, promptVersionId: agent.promptVersionId };
}
