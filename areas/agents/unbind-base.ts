import { asRead } from '#shared/data/as-read.ts';
import { commitChange, orConflict, updateItem, type Change } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { ApiError } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import { agentList, type AgentRecord } from './records.ts';
import { agentKey } from './snapshot.ts';

type Bound = Pick<AgentRecord, 'id' | 'knowledgeBaseIds' | 'updatedAt'> & { deletedAt?: string | null };

const ATTEMPTS = 4;

/**
 * A deleted knowledge base (the knowledge area's BASE_DELETED) leaves every agent draft of the tenant that names it, each with its own
 * audit entry. Published versions are immutable and keep the id: retrieval skips a base that is
 * gone (docs/decisions/agents.md, "A deleted knowledge base leaves the agents"). The write is conditional on the agent being unchanged,
 * as agent edits are, and retried on a concurrent edit. Runs at the delete and again in the purge
 * worker, so a draft that named the base in a race with its deletion loses it too. Answers how many
 * drafts changed. One Query of the tenant's agent list (a tenant holds at most `maxAgents`).
 */
export async function unbindKnowledgeBase(tenantId: string, kbId: string, actor: Change['actor']): Promise<number> {
  const bound = await queryItems<Bound>({
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    FilterExpression: 'contains(knowledgeBaseIds, :kb)',
    ExpressionAttributeValues: { ':pk': agentList(tenantId), ':kb': kbId },
    ProjectionExpression: 'id, knowledgeBaseIds, updatedAt, deletedAt',
  });
  let changed = 0;
  for (const agent of bound) if (await unbindOne(tenantId, agent, kbId, actor)) changed++;
  return changed;
}

async function unbindOne(tenantId: string, first: Bound, kbId: string, actor: Change['actor']): Promise<boolean> {
  let agent: Bound | undefined = first;
  for (let attempt = 1; ; attempt++) {
    if (!agent || agent.deletedAt || !(agent.knowledgeBaseIds ?? []).includes(kbId)) return false;
    const now = new Date().toISOString();
    try {
      await commitChange(
        [
          orConflict(
            updateItem(
              agentKey(tenantId, agent.id),
              { knowledgeBaseIds: agent.knowledgeBaseIds.filter((id) => id !== kbId), updatedAt: now },
              asRead(agent, 'updatedAt', 'attribute_not_exists(deletedAt)'),
            ),
            'The agent changed meanwhile',
          ),
        ],
        {
          tenantId,
          actor,
          entityType: 'Agent',
          entityId: agent.id,
          action: 'unbind-knowledge-base',
          changes: { knowledgeBaseId: kbId, reason: 'knowledge base deleted' },
        },
        { now },
      );
      return true;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409) || attempt >= ATTEMPTS) throw err;
      agent = await get<Bound>(agentKey(tenantId, agent.id), { consistent: true });
    }
  }
}

/** The subscriber of the knowledge area's BASE_DELETED. */
export const unbindDeletedBase = (e: { tenantId: string; kbId: string; actor: Change['actor'] }) =>
  unbindKnowledgeBase(e.tenantId, e.kbId, e.actor);
