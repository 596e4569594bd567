import { asRead } from '#shared/data/as-read.ts';
import type { Principal } from '#shared/auth/access-token.ts';
import { endCallsOfRemovedTools } from './tool-left-agent.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, orConflict, putNew, updateItem, type Change } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { sameIds } from '#shared/data/same-ids.ts';
import { notFound, validationError } from '#shared/http/errors.ts';
import { concurrentUpdate, noActivePromptVersion, planLimitReached, promptNotFound } from './errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { findPrompt } from '#areas/prompts/for-agents.ts';
import { activeToolIds, refreshToolsKbStatusAfter } from '#areas/tools/for-agents.ts';
import { getModel } from '#areas/llm-gateway/for-agents.ts';
import { existingBases } from '#areas/knowledge/for-agents.ts';
import { planSlot, requireAgents } from '#areas/identity/for-agents.ts';
import { agentItem, agentList, deletedIndex, toAgent, type AgentRecord, type Escalation } from './records.ts';
import { agentKey, agentVersionCollection, agentVersionKey, type AgentSnapshot } from './snapshot.ts';

export interface AgentInput {
  name: string;
  description?: string | null;
  promptId: string;
  modelId?: string | null;
  temperature?: number | null;
  welcomeMessage?: string | null;
  escalation?: Partial<Escalation> | null;
  answerOnlyFromKnowledge?: boolean;
  noAnswerReply?: string | null;
  knowledgeBaseIds?: string[];
  toolIds?: string[];
}

const DEFAULT_ESCALATION: Escalation = { enabled: false, noAnswerThreshold: 0.5, maxTurnsBeforeEscalation: null };
const change = (tenantId: string, actor: Principal, entityId: string, action: string, changes: Change['changes']) =>
  ({ tenantId, actor, entityType: 'Agent', entityId, action, changes }) satisfies Change;
const invalid = (path: string, message: string) => validationError([{ path, message }]);
const unique = (ids: readonly string[] = []) => [...new Set(ids)];

/** A live agent of the tenant; a soft-deleted one is 404 like one that never was. */
export async function readAgent(tenantId: string, agentId: string, consistent = true): Promise<AgentRecord> {
  const a = await get<AgentRecord>(agentKey(tenantId, agentId), { consistent });
  if (!a || a.deletedAt) throw notFound('Agent');
  return a;
}

async function readPrompt(tenantId: string, promptId: string) {
  const p = await findPrompt(tenantId, promptId, { consistent: true });
  if (!p || p.archivedAt) throw invalid('body.promptId', "Not one of the tenant's prompts");
  return p;
}

async function checkModel(modelId: string, path = 'body.modelId') {
  const m = await getModel(modelId);
  if (!m?.isActive || m.kind !== 'chat') throw invalid(path, 'Not an active chat model of the catalog');
}

async function checkTools(tenantId: string, ids: string[], path = 'body.toolIds') {
  const active = await activeToolIds(tenantId, ids);
  const bad = ids.filter((id) => !active.has(id));
  if (bad.length) throw invalid(path, `Not ACTIVE tools of the tenant: ${bad.join(', ')}`);
}

async function checkBases(tenantId: string, ids: string[], path = 'body.knowledgeBaseIds') {
  const found = await existingBases(tenantId, ids);
  const bad = ids.filter((id) => !found.has(id));
  if (bad.length) throw invalid(path, `Not knowledge bases of the tenant: ${bad.join(', ')}`);
}

/**
 * Settings are kept to three decimals: a JSON number such as 1e-300 is valid input but below what
 * DynamoDB stores (it would fail the write), and no model reads more precision than that.
 */
const settle3 = (x: number) => Math.round(x * 1000) / 1000;

async function resolve(tenantId: string, input: AgentInput) {
  const prompt = await readPrompt(tenantId, input.promptId);
  const modelId = input.modelId ?? prompt.modelId;
  if (!modelId) throw invalid('body.modelId', 'The prompt names no model: give modelId');
  const knowledgeBaseIds = unique(input.knowledgeBaseIds);
  const toolIds = unique(input.toolIds);
  await Promise.all([checkModel(modelId), checkTools(tenantId, toolIds), checkBases(tenantId, knowledgeBaseIds)]);
  return {
    name: input.name,
    description: input.description || null,
    promptId: input.promptId,
    modelId,
    temperature: input.temperature == null ? null : settle3(input.temperature),
    welcomeMessage: input.welcomeMessage || null,
    escalation: (({ noAnswerThreshold, ...rest }) => ({ ...rest, noAnswerThreshold: settle3(noAnswerThreshold) }))({
      ...DEFAULT_ESCALATION,
      ...(input.escalation ?? {}),
    }),
    answerOnlyFromKnowledge: input.answerOnlyFromKnowledge ?? false,
    noAnswerReply: input.noAnswerReply || null,
    knowledgeBaseIds,
    toolIds,
    searchText: input.name.toLowerCase(),
  };
}

export async function listAgents(
  tenantId: string,
  q: { page: number; pageSize: number; search?: string; status?: string },
) {
  const { items, totalCount } = await listNewestFirst<AgentRecord>(agentList(tenantId), {
    ...q,
    where: q.status ? { status: q.status } : undefined,
  });
  return toPage(items.map(toAgent), totalCount, q.page, q.pageSize);
}

export const getAgent = async (tenantId: string, agentId: string) => toAgent(await readAgent(tenantId, agentId, false));

async function insert(
  tenantId: string,
  fields: Omit<
    AgentRecord,
    'id' | 'tenantId' | 'createdAt' | 'updatedAt' | 'status' | 'publishedVersion' | 'versionCount' | 'promptVersionId'
  >,
  actor: Principal,
  action: string,
) {
  const now = new Date().toISOString();
  const agent: AgentRecord = {
    id: crypto.randomUUID(),
    tenantId,
    ...fields,
    status: 'Draft',
    promptVersionId: null,
    publishedVersion: null,
    versionCount: 0,
    createdAt: now,
    updatedAt: now,
  };
  await commitChange(
    [
      orConflict(planSlot(tenantId, 'agents', 1), planLimitReached('maxAgents')),
      putNew(agentItem(agent)),
      bumpCounter(agentList(tenantId), 1),
    ],
    change(tenantId, actor, agent.id, action, { name: agent.name, promptId: agent.promptId, modelId: agent.modelId }),
    { now },
  );
  return toAgent(agent);
}

export async function createAgent(tenantId: string, input: AgentInput, actor: Principal) {
  await requireAgents(tenantId);
  return insert(tenantId, await resolve(tenantId, input), actor, 'create');
}

/** The draft's settings that a copy and a published version take over unchanged. */
const settingsOf = (a: AgentRecord) => ({
  promptId: a.promptId,
  modelId: a.modelId,
  temperature: a.temperature,
  welcomeMessage: a.welcomeMessage,
  escalation: a.escalation,
  answerOnlyFromKnowledge: a.answerOnlyFromKnowledge ?? false,
  noAnswerReply: a.noAnswerReply ?? null,
  knowledgeBaseIds: a.knowledgeBaseIds,
  toolIds: a.toolIds,
});

export async function duplicateAgent(
  tenantId: string,
  agentId: string,
  name: string | null | undefined,
  actor: Principal,
) {
  await requireAgents(tenantId);
  const a = await readAgent(tenantId, agentId);
  const copyName = name || `${a.name} (copy)`.slice(0, 200);
  return insert(
    tenantId,
    {
      ...settingsOf(a),
      name: copyName,
      description: a.description,
      searchText: copyName.toLowerCase(),
    },
    actor,
    'duplicate',
  );
}

/** Writes the set fields under the condition that the agent is live and unchanged since read. */
async function patch(
  tenantId: string,
  a: AgentRecord,
  set: Partial<AgentRecord>,
  actor: Principal,
  action: string,
  extra: Parameters<typeof commitChange>[0] = [],
) {
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(
        updateItem(
          agentKey(tenantId, a.id),
          { ...set, updatedAt: now },
          asRead(a, 'updatedAt', 'attribute_not_exists(deletedAt)'),
        ),
        concurrentUpdate(),
      ),
      ...extra,
    ],
    change(tenantId, actor, a.id, action, set as Change['changes']),
    { now },
  );
  // A change of what the draft or the published version offers may leave held calls without their tool.
  if (set.toolIds || 'status' in set || 'publishedVersion' in set) await endCallsOfRemovedTools(tenantId, a.id);
  return toAgent({ ...a, ...set, updatedAt: now } as AgentRecord);
}

/** Tools show the chunks of their agents' bases (docs/decisions/knowledge.md, "Tools' kbStatus"): a change of bases moves them. */
async function afterBasesChange<T extends { knowledgeBaseIds: string[] }>(
  tenantId: string,
  before: AgentRecord,
  after: T,
) {
  if (!sameIds(before.knowledgeBaseIds, after.knowledgeBaseIds))
    await refreshToolsKbStatusAfter(tenantId, 'agent knowledge bases changed');
  return after;
}

export async function updateAgent(tenantId: string, agentId: string, input: AgentInput, actor: Principal) {
  await requireAgents(tenantId);
  const a = await readAgent(tenantId, agentId);
  return afterBasesChange(tenantId, a, await patch(tenantId, a, await resolve(tenantId, input), actor, 'update'));
}

export async function setTools(tenantId: string, agentId: string, toolIds: string[], actor: Principal) {
  await requireAgents(tenantId);
  const a = await readAgent(tenantId, agentId);
  const ids = unique(toolIds);
  await checkTools(tenantId, ids);
  return patch(tenantId, a, { toolIds: ids }, actor, 'set-tools');
}

export async function setBases(tenantId: string, agentId: string, knowledgeBaseIds: string[], actor: Principal) {
  await requireAgents(tenantId);
  const a = await readAgent(tenantId, agentId);
  const ids = unique(knowledgeBaseIds);
  await checkBases(tenantId, ids);
  return afterBasesChange(
    tenantId,
    a,
    await patch(tenantId, a, { knowledgeBaseIds: ids }, actor, 'set-knowledge-bases'),
  );
}

/** Soft delete: the item stays (deletedAt) for the audit trail and versions; every read answers 404. */
export async function deleteAgent(tenantId: string, agentId: string, actor: Principal) {
  const a = await readAgent(tenantId, agentId);
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(
        updateItem(
          agentKey(tenantId, agentId),
          { deletedAt: now, updatedAt: now, status: 'Draft', ...deletedIndex(tenantId) },
          {
            condition: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)',
          },
        ),
        notFound('Agent'),
      ),
      bumpCounter(agentList(tenantId), -1),
      planSlot(tenantId, 'agents', -1),
    ],
    change(tenantId, actor, agentId, 'delete', { name: a.name }),
    { now },
  );
  if (a.knowledgeBaseIds?.length) await refreshToolsKbStatusAfter(tenantId, 'agent deleted');
  await endCallsOfRemovedTools(tenantId, agentId);
}

/**
 * Publishing pins the prompt's Active version (409 NO_ACTIVE_PROMPT_VERSION without one) with the
 * draft's model, tools and bases in an immutable version item; the version number only grows.
 */
export async function publishAgent(tenantId: string, agentId: string, actor: Principal) {
  await requireAgents(tenantId);
  const a = await readAgent(tenantId, agentId);
  const prompt = await readPrompt(tenantId, a.promptId).catch(() => {
    throw promptNotFound();
  });
  if (!prompt.activeVersionId) throw noActivePromptVersion('The prompt has no Active version to publish');
  await Promise.all([
    checkModel(a.modelId, 'modelId'),
    checkTools(tenantId, a.toolIds, 'toolIds'),
    checkBases(tenantId, a.knowledgeBaseIds, 'knowledgeBaseIds'),
  ]);
  const version = (a.versionCount ?? 0) + 1;
  const snapshot: AgentSnapshot = {
    agentId,
    version,
    ...settingsOf(a),
    name: a.name,
    promptVersionId: prompt.activeVersionId,
  };
  const publishedAt = new Date().toISOString();
  return patch(
    tenantId,
    a,
    { status: 'Published', publishedVersion: version, versionCount: version, promptVersionId: prompt.activeVersionId },
    actor,
    'publish',
    [
      putNew({
        ...agentVersionKey(tenantId, agentId, version),
        id: versionId(agentId, version),
        snapshot,
        publishedAt,
        publishedBy: actor.userId,
      }),
    ],
  );
}

export async function unpublishAgent(tenantId: string, agentId: string, actor: Principal) {
  await requireAgents(tenantId);
  const a = await readAgent(tenantId, agentId);
  return patch(tenantId, a, { status: 'Draft', publishedVersion: null, promptVersionId: null }, actor, 'unpublish');
}

/**
 * A version's id is a UUID derived from the agent and the number (name-based, stable), so the
 * route takes a guid and restore finds the version with one GetItem after parsing the number.
 */
const versionId = (agentId: string, version: number) => `${agentId.slice(0, 24)}${String(version).padStart(12, '0')}`;
const versionNumber = (agentId: string, id: string) =>
  id.slice(0, 24) === agentId.slice(0, 24) && /^\d{12}$/.test(id.slice(24)) ? Number(id.slice(24)) : null;

type VersionItem = { id: string; snapshot: AgentSnapshot; publishedAt: string; publishedBy: string };
const toVersion = ({ id, snapshot: s, publishedAt, publishedBy }: VersionItem) => ({
  id,
  version: s.version ?? 0,
  publishedAt,
  publishedBy,
  name: s.name,
  promptId: s.promptId,
  promptVersionId: s.promptVersionId,
  modelId: s.modelId,
  temperature: s.temperature,
  welcomeMessage: s.welcomeMessage,
  escalation: s.escalation,
  answerOnlyFromKnowledge: s.answerOnlyFromKnowledge ?? false,
  noAnswerReply: s.noAnswerReply ?? null,
  knowledgeBaseIds: s.knowledgeBaseIds,
  toolIds: s.toolIds,
});

export async function listVersions(tenantId: string, agentId: string, q: { page: number; pageSize: number }) {
  await readAgent(tenantId, agentId, false);
  const all = await queryItems<VersionItem>({
    TableName: config.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': agentVersionCollection(tenantId, agentId) },
    ScanIndexForward: false,
  });
  const start = (q.page - 1) * q.pageSize;
  return toPage(all.slice(start, start + q.pageSize).map(toVersion), all.length, q.page, q.pageSize);
}

/**
 * Restore copies the version's settings into the draft; the agent's status and published version
 * stay as they are (widgets keep running what is published until the next publish).
 */
export async function restoreVersion(tenantId: string, agentId: string, vId: string, actor: Principal) {
  await requireAgents(tenantId);
  const a = await readAgent(tenantId, agentId);
  const n = versionNumber(agentId, vId);
  const v = n ? await get<VersionItem>(agentVersionKey(tenantId, agentId, n)) : undefined;
  if (!v) throw notFound('Agent version');
  const s = v.snapshot;
  // The version keeps the bases it pinned; the draft takes only those that still exist.
  const bases = await existingBases(tenantId, s.knowledgeBaseIds);
  const knowledgeBaseIds = s.knowledgeBaseIds.filter((id) => bases.has(id));
  const restored = await patch(
    tenantId,
    a,
    {
      name: s.name,
      searchText: s.name.toLowerCase(),
      promptId: s.promptId,
      modelId: s.modelId,
      temperature: s.temperature,
      welcomeMessage: s.welcomeMessage,
      escalation: s.escalation,
      answerOnlyFromKnowledge: s.answerOnlyFromKnowledge ?? false,
      noAnswerReply: s.noAnswerReply ?? null,
      knowledgeBaseIds,
      toolIds: s.toolIds,
    },
    actor,
    'restore',
  );
  return afterBasesChange(tenantId, a, restored);
}
