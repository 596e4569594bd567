import { get } from '#shared/data/read.ts';
import { queryItems } from '#shared/data/query.ts';
import { updateItem } from '#shared/data/commit.ts';
import { writeOne } from '#shared/data/write-one.ts';
import { config } from '#shared/platform/config.ts';
import { logger } from '#shared/runtime/logger.ts';
import type { ActionRecord } from './pending-actions.ts';
import { actionKey, pendingEntry, PENDING_ACTIONS } from './records.ts';
import { agentKey, agentVersionKey, type AgentSnapshot } from './snapshot.ts';

/**
 * A held call runs only while its tool is still on the agent (docs/decisions/agents.md, "Approval"):
 * on the published version for a conversation's call (what its visitors talk to now), on the draft
 * for the playground's. An agent change that drops a tool ends that tool's pending calls at once.
 */
export const TOOL_LEFT_NOTE = 'the tool was removed from the agent before anyone approved the call';

interface AgentTools {
  deletedAt?: string | null;
  status?: string;
  publishedVersion?: number | null;
  toolIds?: string[];
}

/** The tools a held call of each owner kind may still use: the draft's, and the live published version's. */
async function boundTools(tenantId: string, agentId: string) {
  const agent = await get<AgentTools>(agentKey(tenantId, agentId), { consistent: true });
  if (!agent || agent.deletedAt) return { draft: [], published: [] };
  const version =
    agent.status === 'Published' && agent.publishedVersion
      ? await get<{ snapshot?: AgentSnapshot }>(agentVersionKey(tenantId, agentId, agent.publishedVersion))
      : undefined;
  return { draft: agent.toolIds ?? [], published: version?.snapshot?.toolIds ?? [] };
}

const onAgent = (a: ActionRecord, tools: Awaited<ReturnType<typeof boundTools>>) =>
  (a.owner.kind === 'playground' ? tools.draft : tools.published).includes(a.toolId);

export const toolStillOnAgent = async (a: ActionRecord) => onAgent(a, await boundTools(a.tenantId, a.agentId));

/**
 * After an agent change (tools, publish, unpublish, restore, delete): its pending calls whose tool
 * it no longer has are due now, with the note. They stay Pending in the sweep's partition with an
 * expiry of now, so they read as Expired at once, an approval is refused, and the scheduler's minute
 * (or the next list of the conversation's actions) writes them Expired and resumes their turns,
 * which only the conversations area can do. The pending partition is the platform's undecided calls
 * (each leaves it when decided), read with a filter on the agent: an owner's change, not a hot path.
 */
export async function endCallsOfRemovedTools(tenantId: string, agentId: string, now = Date.now()) {
  try {
    const pending = await queryItems<ActionRecord>({
      TableName: config.tableName,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      FilterExpression: 'tenantId = :t AND agentId = :a',
      ExpressionAttributeValues: { ':pk': PENDING_ACTIONS, ':t': tenantId, ':a': agentId },
    });
    if (!pending.length) return;
    const tools = await boundTools(tenantId, agentId);
    const expiresAt = new Date(now).toISOString();
    for (const a of pending.filter((x) => !onAgent(x, tools))) {
      // A call decided meanwhile fails the condition and keeps its decision.
      await writeOne(
        updateItem(
          actionKey(tenantId, a.owner, a.id),
          { expiresAt, note: TOOL_LEFT_NOTE, ...pendingEntry({ ...a, expiresAt }) },
          { condition: '#st = :pending', names: { '#st': 'status' }, values: { ':pending': 'Pending' } },
        ),
      );
    }
  } catch (err) {
    // The approval's own check still refuses the call; the agent change itself stands.
    logger.warn('pending calls of removed tools not ended', { tenantId, agentId, error: err as Error });
  }
}
