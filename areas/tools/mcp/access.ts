import { resolveTenantSecret } from '#areas/vault/for-tools.ts';
import { storedSchema, toParams, type ToolItem } from '#areas/tools/records.ts';
import { McpUnavailable, type McpServerAccess } from './client.ts';

/** How the platform reaches a tool's MCP server: its URL, its auth with the secret resolved, its bounds. */
export async function accessOf(tool: ToolItem): Promise<McpServerAccess> {
  const s = storedSchema(tool);
  if (!s.serverUrl) throw new McpUnavailable('The tool has no MCP server URL; set schema.serverUrl first');
  const method = s.authMethod ?? 'none';
  const secret =
    method !== 'none' && s.connectionString ? await resolveTenantSecret(tool.tenantId, s.connectionString) : null;
  if (method !== 'none' && !secret) throw new McpUnavailable('The tool has no secret for its MCP server auth');
  const p = toParams(tool);
  return {
    serverUrl: s.serverUrl,
    authMethod: method,
    authHeaderName: s.authHeaderName ?? null,
    oauth:
      method === 'oauth' && s.oauthClientId && s.oauthIssuer
        ? { clientId: s.oauthClientId, issuer: s.oauthIssuer, scope: s.oauthScope ?? null }
        : null,
    secret,
    timeoutMs: p.timeoutSeconds * 1000,
    maxResponseBytes: p.maxResponseBytes,
  };
}
