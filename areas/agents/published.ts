import { agentKey, agentVersionKey, type AgentSnapshot } from './snapshot.ts';
import { keyId } from '#shared/data/keys.ts';
import { get, getMany } from '#shared/data/read.ts';
import { agentNotPublished } from './errors.ts';

interface AgentState {
  status?: string;
  deletedAt?: string | null;
  publishedVersion?: number | null;
}
type VersionItem = { snapshot?: AgentSnapshot };

const live = (a: AgentState | undefined): a is AgentState & { publishedVersion: number } =>
  !!a && !a.deletedAt && a.status === 'Published' && !!a.publishedVersion;

/**
 * The published agent a conversation talks to. The agent must still be Published and not deleted (an
 * unpublished or deleted agent's widgets and channels stop answering at once). A conversation runs
 * the version it started with: with `version`, agent and version are one BatchGetItem; a new
 * conversation takes the current version (two reads).
 */
export async function publishedAgent(tenantId: string, agentId: string, version?: number): Promise<AgentSnapshot> {
  const agentK = agentKey(tenantId, agentId);
  let agent: AgentState | undefined;
  let found: VersionItem | undefined;
  if (version === undefined) {
    agent = await get<AgentState>(agentK);
    if (live(agent)) found = await get<VersionItem>(agentVersionKey(tenantId, agentId, agent.publishedVersion));
  } else {
    const versionK = agentVersionKey(tenantId, agentId, version);
    const items = await getMany<AgentState & VersionItem>([agentK, versionK]);
    agent = items.get(keyId(agentK));
    found = items.get(keyId(versionK));
  }
  if (!live(agent) || !found?.snapshot) throw agentNotPublished();
  return found.snapshot;
}
