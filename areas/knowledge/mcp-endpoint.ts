import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, putNew } from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { get } from '#shared/data/read.ts';
import { notFound, unauthorized } from '#shared/http/errors.ts';
import { reply } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import type { GatewayKeyRef } from '#shared/runtime/credentials.ts';
import { gatewayKeyInForce, issueGatewayCredential } from '#areas/llm-gateway/for-knowledge.ts';
import { readBase } from './bases.ts';

/**
 * Knowledge served over MCP: an endpoint minted for one base, reached with a gateway key made for
 * it alone. The key allows no model and no budget, so it opens nothing of the LLM gateway; the
 * endpoint record ties it to its base, and every request reads the key strongly consistent, so a
 * revoked key (the gateway key routes) stops the endpoint at once.
 */
export interface McpEndpointRecord {
  id: string;
  tenantId: string;
  kbId: string;
  keyId: string;
  /** Who minted it: searches are metered to them, as their own retrievals are. */
  createdBy: string;
  createdAt: string;
}

const endpointKey = (tenantId: string, id: string) => keys.tenantItem(tenantId, 'KB_MCP', id);

export const MCP_PATH = '/mcp/knowledge';

export async function mintMcpEndpoint(tenantId: string, kbId: string, actor: Principal) {
  const base = await readBase(tenantId, kbId);
  const key = await issueGatewayCredential(
    tenantId,
    { name: `MCP: ${base.name}`.slice(0, 100), models: [], maxBudgetUsd: 0 },
    actor,
  );
  const now = new Date().toISOString();
  const record: McpEndpointRecord = {
    id: crypto.randomUUID(),
    tenantId,
    kbId,
    keyId: key.id,
    createdBy: actor.userId,
    createdAt: now,
  };
  await commitChange(
    [putNew({ ...endpointKey(tenantId, record.id), ...record })],
    {
      tenantId,
      actor,
      entityType: 'KnowledgeBase',
      entityId: kbId,
      action: 'mint-mcp-endpoint',
      changes: { endpointId: record.id, keyId: key.id },
    },
    { now },
  );
  return {
    endpointId: record.id,
    kbId,
    url: `${config.publicBaseUrl.replace(/\/$/, '')}${MCP_PATH}/${record.id}`,
    keyId: key.id,
    key: key.key,
    createdAt: now,
  };
}

/**
 * The endpoint a request names, when its key is the endpoint's own and still live; 401 or 404
 * otherwise. A caller signed in some other way is told its credential is the wrong kind only for an
 * endpoint of its own tenant: another tenant's does not exist for it (404).
 */
export async function endpointFor(
  endpointId: string,
  key: GatewayKeyRef | null,
  callerTenantId: string,
): Promise<McpEndpointRecord> {
  if (!key) {
    if (!(await get(endpointKey(callerTenantId, endpointId), { attributes: ['pk'] }))) throw notFound('MCP endpoint');
    throw unauthorized('An MCP endpoint takes the gateway key it was minted with');
  }
  const endpoint = await get<McpEndpointRecord>(endpointKey(key.tenantId, endpointId), { consistent: true });
  if (!endpoint || endpoint.keyId !== key.keyId) throw notFound('MCP endpoint');
  const live = await gatewayKeyInForce(key.tenantId, key.keyId);
  if (!live || live.revokedAt || (live.expiresAt && Date.parse(live.expiresAt) <= Date.now()))
    throw unauthorized('The gateway key is revoked or expired');
  await readBase(endpoint.tenantId, endpoint.kbId);
  return endpoint;
}

/** One MCP request answered by a server made for this endpoint (stateless: nothing outlives the request). */
export async function serveMcp(
  endpoint: McpEndpointRecord,
  request: { url: string; headers: Record<string, string | undefined>; body: string | undefined; requestId: string },
) {
  const [{ knowledgeMcpServer }, sdk] = await Promise.all([
    import('./mcp-server.ts'),
    import('@modelcontextprotocol/server'),
  ]);
  const handler = sdk.createMcpHandler(() => knowledgeMcpServer(sdk, endpoint, request.requestId));
  const headers = new Headers();
  for (const [k, v] of Object.entries(request.headers))
    if (v !== undefined && k !== 'authorization' && k !== 'host' && k !== 'content-length') headers.set(k, v);
  const answer = await handler.fetch(new Request(request.url, { method: 'POST', headers, body: request.body ?? '' }));
  const body = await answer.text();
  await handler.close();
  if (answer.status === 202 || answer.status === 204) return reply.empty(answer.status as 202 | 204);
  return reply.raw(answer.headers.get('content-type') ?? 'application/json', body, { status: answer.status });
}
