import { defineQuery } from '#shared/data/queries.ts';

/** An agent of the tenant as the tools area needs it: a tool's `agentIds` name agents, and its kbStatus counts their bases. */
export interface AgentBases {
  id: string;
  knowledgeBaseIds: string[];
}

/** The tenant's live agents with their draft's knowledge bases: the agents area answers. */
export const TENANT_AGENTS = defineQuery<[tenantId: string], AgentBases[]>('tools.tenant-agents');
