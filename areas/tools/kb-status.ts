import { writeItem } from '#shared/data/write-one.ts';
import { orConflict, updateItem } from '#shared/data/commit.ts';
import { recordsOf } from '#shared/data/query.ts';
import { ApiError } from '#shared/http/errors.ts';
import { logger } from '#shared/runtime/logger.ts';
import { baseChunkCounts } from '#areas/knowledge/for-tools.ts';
import { ask } from '#shared/data/queries.ts';
import { TENANT_AGENTS, type AgentBases } from './queries.ts';
import { tools } from './records.ts';

/**
 * A tool's `chunkCount` (its `kbStatus`) is the sum of the chunks of the distinct knowledge bases
 * bound to the live agents its `agentIds` name (docs/decisions/tools.md, "kbStatus"). It is kept
 * on the tool item, so a tool read stays one GetItem and the `kbStatus` list filter one Query. The
 * tools area owns the relation a tool's `agentIds` are, so it computes the count: the agents' bases
 * come from the agents area (an upward query), the bases' chunks from the knowledge area.
 *
 * This recomputes every tool of the tenant from its tools, agents and bases (three consistent
 * Queries of base-table partitions, bounded by the plan's limits) and writes only the tools whose
 * count changed, each conditional on the count it read. Tools are read first: a refresh that read
 * stale inputs can then only succeed where no fresher refresh wrote since, and a lost condition
 * runs the whole pass again. Every caller runs it after its own change committed; because it
 * recomputes from scratch, a pass that failed is repaired by the tenant's next one.
 */
type ToolRow = { id: string; agentIds?: string[]; chunkCount?: number; deletedAt?: string };
type BaseRow = { id: string; chunkCount?: number };

const ATTEMPTS = 4;

/** What each live tool's chunkCount should be, from the tenant's agents and bases. */
export function expectedCounts(toolRows: ToolRow[], agents: AgentBases[], bases: BaseRow[]): Map<string, number> {
  const chunks = new Map(bases.map((b) => [b.id, Math.max(0, Number(b.chunkCount ?? 0))]));
  const boundTo = new Map(agents.map((a) => [a.id, a.knowledgeBaseIds]));
  const out = new Map<string, number>();
  for (const tool of toolRows) {
    if (tool.deletedAt) continue;
    const kbIds = new Set((tool.agentIds ?? []).flatMap((id) => boundTo.get(id) ?? []));
    out.set(
      tool.id,
      [...kbIds].reduce((n, kbId) => n + (chunks.get(kbId) ?? 0), 0),
    );
  }
  return out;
}

async function pass(tenantId: string): Promise<number> {
  const toolRows = await recordsOf<ToolRow>(tools.collection(tenantId), 'id, agentIds, chunkCount, deletedAt');
  if (!toolRows.some((r) => !r.deletedAt)) return 0;
  const [agents, bases] = await Promise.all([ask(TENANT_AGENTS, tenantId), baseChunkCounts(tenantId)]);
  const expected = expectedCounts(toolRows, agents, bases);
  let written = 0;
  for (const tool of toolRows) {
    const want = expected.get(tool.id);
    if (want === undefined || want === Number(tool.chunkCount ?? 0)) continue;
    const seen = tool.chunkCount;
    // Derived data, like a list counter: no audit entry (the change that moved it has its own).
    await writeItem(
      orConflict(
        updateItem(
          tools.key(tenantId, tool.id),
          { chunkCount: want },
          seen === undefined
            ? { condition: 'attribute_exists(pk) AND attribute_not_exists(chunkCount)' }
            : { condition: 'attribute_exists(pk) AND chunkCount = :seen', values: { ':seen': seen } },
        ),
        'The tool changed meanwhile',
      ),
    );
    written++;
  }
  return written;
}

/** Brings every tool of the tenant to its bound bases' chunk count; answers how many tools changed. */
export async function refreshToolsKbStatus(tenantId: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await pass(tenantId);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409) || attempt >= ATTEMPTS) throw err;
    }
  }
}

/** After a committed change: a failure is logged, never the caller's error (the next pass repairs it). */
export async function refreshToolsKbStatusAfter(tenantId: string, cause: string): Promise<void> {
  try {
    await refreshToolsKbStatus(tenantId);
  } catch (err) {
    logger.warn('tools kbStatus not refreshed', { cause, errorName: (err as Error).name });
  }
}

/** The subscriber of the knowledge area's CHUNKS_CHANGED. */
export const refreshAfterChunksChanged = (e: { tenantId: string; cause: string }) =>
  refreshToolsKbStatusAfter(e.tenantId, e.cause);
