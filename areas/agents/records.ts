import { keys, PLATFORM, type Key } from '#shared/data/keys.ts';
import { agentKey } from './snapshot.ts';

/**
 * The agents area's records. An agent is `{t}#AGENT` / agentId (snapshot.ts), listed newest first
 * on gsi1; a soft-deleted agent keeps its item (with deletedAt) and moves to the archive list, so
 * every read by id answers 404 for it while the audit trail and versions stay.
 */
export const agentList = (tenantId: string) => keys.tenantCollection(tenantId, 'AGENT');
const deletedAgents = (tenantId: string) => keys.archived(keys.tenantCollection(tenantId, 'AGENT'));
/** The list index attributes of a deleted agent: it leaves the list for the archive partition. */
export const deletedIndex = (tenantId: string) => ({ gsi1pk: deletedAgents(tenantId) });

export const AGENT_STATUSES = ['Draft', 'Published'] as const;
type AgentStatus = (typeof AGENT_STATUSES)[number];

export interface Escalation {
  enabled: boolean;
  noAnswerThreshold: number;
  maxTurnsBeforeEscalation: number | null;
}

/** Stored attribute names are the spec's: the runtime reads this item by agentKey. */
export interface AgentRecord {
  id: string;
  tenantId: string;
  name: string;
  description: string | null;
  status: AgentStatus;
  promptId: string;
  promptVersionId: string | null;
  modelId: string;
  temperature: number | null;
  welcomeMessage: string | null;
  escalation: Escalation;
  /** Off-topic questions (no source reaches the threshold) get `noAnswerReply` without a model call. */
  answerOnlyFromKnowledge?: boolean;
  noAnswerReply?: string | null;
  knowledgeBaseIds: string[];
  toolIds: string[];
  publishedVersion: number | null;
  /** The highest version number ever published (restore never lowers it). */
  versionCount: number;
  searchText: string;
  createdAt: string;
  updatedAt: string;
  deletedAt?: string | null;
}

export const agentItem = (a: AgentRecord) => ({
  ...agentKey(a.tenantId, a.id),
  ...keys.newestFirst(agentList(a.tenantId), a.createdAt, a.id),
  ...a,
});

export const toAgent = (a: AgentRecord) => ({
  id: a.id,
  name: a.name,
  description: a.description ?? null,
  status: a.status,
  promptId: a.promptId,
  promptVersionId: a.promptVersionId ?? null,
  modelId: a.modelId,
  temperature: a.temperature ?? null,
  welcomeMessage: a.welcomeMessage ?? null,
  escalation: a.escalation,
  answerOnlyFromKnowledge: a.answerOnlyFromKnowledge ?? false,
  noAnswerReply: a.noAnswerReply ?? null,
  knowledgeBaseIds: a.knowledgeBaseIds ?? [],
  toolIds: a.toolIds ?? [],
  publishedVersion: a.publishedVersion ?? null,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
});

/**
 * A held tool call's owner: a conversation, or the agent's playground (areas/agents/pending-actions.ts).
 * Its actions and paused turns are children of that owner; a Pending action also sits on gsi2
 * `PLATFORM#ACTION_PENDING` by its expiry, for the sweep.
 */
export type Owner = { kind: 'conversation'; id: string } | { kind: 'playground'; id: string };
const parentOf = (o: Owner) => (o.kind === 'conversation' ? 'CONVERSATION' : 'AGENT') as 'CONVERSATION' | 'AGENT';
export const actionKey = (t: string, o: Owner, id: string): Key => keys.childItem(t, parentOf(o), o.id, 'ACTION', id);
export const actionList = (t: string, o: Owner) => keys.childCollection(t, parentOf(o), o.id, 'ACTION');
export const pausedKey = (t: string, o: Owner, id: string): Key => keys.childItem(t, parentOf(o), o.id, 'PAUSED', id);

export const PENDING_ACTIONS = `${PLATFORM}#ACTION_PENDING`;
export const pendingEntry = (a: { expiresAt: string; tenantId: string; id: string }) => ({
  gsi2pk: PENDING_ACTIONS,
  gsi2sk: `${a.expiresAt}#${a.tenantId}#${a.id}`,
});
