import { keys } from '#shared/data/keys.ts';

/**
 * What one agent turn runs with, resolved (docs/architecture.md, "Agents"): the draft for the
 * playground, a published version for widgets and channels. Publishing stores one of these,
 * immutable, in the agent's version item; the runtime reads it and nothing else of the agent.
 */
export interface AgentSnapshot {
  agentId: string;
  /** The published version number; null for the draft. */
  version: number | null;
  name: string;
  promptId: string;
  /** The prompt version rendered: pinned at publish; for the draft, the prompt's Active version. */
  promptVersionId: string;
  /** Catalog model id (the gateway's `getModel`). */
  modelId: string;
  temperature: number | null;
  welcomeMessage: string | null;
  escalation: { enabled: boolean; noAnswerThreshold: number; maxTurnsBeforeEscalation: number | null };
  /** Absent on versions published before the setting existed: they answer as they did. */
  answerOnlyFromKnowledge?: boolean;
  noAnswerReply?: string | null;
  knowledgeBaseIds: string[];
  toolIds: string[];
}

/** The agent record (the draft's settings, status, counters): `{t}#AGENT` / agentId. */
export const agentKey = (tenantId: string, agentId: string) => keys.tenantItem(tenantId, 'AGENT', agentId);

/** An immutable published version, `{ snapshot: AgentSnapshot, ... }`; zero-padded so versions sort. */
export const agentVersionKey = (tenantId: string, agentId: string, version: number) =>
  keys.childItem(tenantId, 'AGENT', agentId, 'VERSION', String(version).padStart(6, '0'));

export const agentVersionCollection = (tenantId: string, agentId: string) =>
  keys.childCollection(tenantId, 'AGENT', agentId, 'VERSION');
