import { agentKey, type AgentSnapshot } from '#areas/agents/snapshot.ts';
import { commitChange, putItem } from '#shared/data/commit.ts';
import { promptItem, versionItem } from '#areas/prompts/records.ts';
import { toolItem } from '#areas/tools/records.ts';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';

const actor = { userId: 'test', email: 'test@example.com' };

/** A prompt with one Active version, written directly (the prompts routes need review and approval). */
export async function activePrompt(t: string, content: string) {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const v = versionItem(t, id, 1, { content, placeholders: [] }, actor as never, null, now);
  const p = promptItem(t, {
    id,
    title: 'Agent prompt',
    content,
    placeholders: [],
    modelId: null,
    temperature: 0,
    tags: [],
    abTestConfig: { variantA: false, variantB: false },
    autoEvaluationScores: { quality: null, safety: null },
    activeVersionId: v.id,
    activeVersionNumber: 1,
    inReviewCount: 0,
    versionCount: 1,
    versionIndex: { [v.id]: 1 },
    archivedAt: null,
    createdAt: now,
    updatedAt: now,
  });
  await commitChange([putItem(p), putItem({ ...v, status: 'Active' })], null);
  return { promptId: id, promptVersionId: v.id };
}

/** An ACTIVE tenant tool of a built-in type, written directly (approval is the tools routes' concern). */
export async function activeTool(
  t: string,
  code: string,
  displayName: string,
  extra: { configParams?: Record<string, unknown>; schema?: Record<string, unknown> } = {},
) {
  const base = BUILT_IN_TOOLS.find((b) => b.code === code);
  if (!base) throw new Error(`no built-in tool ${code}`);
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  await commitChange(
    [
      putItem(
        toolItem(t, {
          id,
          displayName,
          description: null,
          baseToolId: base.id,
          baseToolCode: base.code,
          baseToolName: base.name,
          type: base.type,
          status: 'ACTIVE',
          agentIds: [],
          schema: { databaseType: null, schemaName: null, tables: [], connectionString: null, ...extra.schema },
          chunkCount: 0,
          configParams: { maxRows: 100, readOnly: true, timeoutSeconds: 30, ...extra.configParams } as never,
          createdAt: now,
          updatedAt: now,
        }),
      ),
    ],
    null,
  );
  return id;
}

/** An agent item under the spec's field names (the agents' CRUD lands from another branch). */
export async function agentItem(t: string, fields: Partial<AgentSnapshot> & { promptId: string }) {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const item = {
    ...agentKey(t, id),
    id,
    tenantId: t,
    name: 'Helper',
    status: 'Draft',
    modelId: 'local-chat',
    temperature: 0,
    welcomeMessage: null,
    escalation: { enabled: false, noAnswerThreshold: 0.2, maxTurnsBeforeEscalation: null },
    knowledgeBaseIds: [],
    toolIds: [],
    publishedVersion: null,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
  await commitChange([putItem(item)], null);
  return item;
}

export function snapshotOf(item: Awaited<ReturnType<typeof agentItem>>, promptVersionId: string): AgentSnapshot {
  return {
    agentId: item.id,
    version: null,
    name: item.name,
    promptId: item.promptId,
    promptVersionId,
    modelId: item.modelId,
    temperature: item.temperature,
    welcomeMessage: item.welcomeMessage,
    escalation: item.escalation,
    knowledgeBaseIds: item.knowledgeBaseIds,
    toolIds: item.toolIds,
  };
}
