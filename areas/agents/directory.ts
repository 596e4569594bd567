import { recordsOf } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { agentList, type AgentRecord } from './records.ts';
import { agentKey } from './snapshot.ts';

/**
 * What the areas below ask of the agents (their queries, answered through each function's wiring):
 * whether an agent is one of the tenant's live agents (a channel connection serves one), and the
 * tenant's live agents with their draft's bases (a tool's `agentIds` and kbStatus).
 */
export async function isLiveAgent(tenantId: string, agentId: string): Promise<boolean> {
  const a = await get<Pick<AgentRecord, 'deletedAt'>>(agentKey(tenantId, agentId), {
    consistent: true,
    attributes: ['pk', 'deletedAt'],
  });
  return !!a && !a.deletedAt;
}

/** One strongly consistent Query of the agent partition (a tenant holds at most `maxAgents`). */
export async function tenantAgents(tenantId: string) {
  const rows = await recordsOf<Pick<AgentRecord, 'id' | 'knowledgeBaseIds' | 'deletedAt'>>(
    agentList(tenantId),
    'id, knowledgeBaseIds, deletedAt',
  );
  return rows.filter((a) => !a.deletedAt).map((a) => ({ id: a.id, knowledgeBaseIds: a.knowledgeBaseIds ?? [] }));
}
