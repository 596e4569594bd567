import type { Principal } from '#shared/auth/access-token.ts';
import { conflict } from '#shared/http/errors.ts';
import { mcpServerFailed } from './errors.ts';
import { accessOf } from './mcp/access.ts';
import { McpUnavailable, withMcpClient } from './mcp/client.ts';
import { approvalOf, approvedToolsChanged, isMcp, keepServerTools, MCP_LIMITS } from './mcp/server-tools.ts';
import { toParams, type ToolItem } from './records.ts';
import { changeTool, editable, getTool } from './tools.ts';

/** The server's tools as a read shows them: what the model would see, and what the tenant chose of each. */
function toServerTools(tool: ToolItem) {
  const p = toParams(tool);
  return {
    refreshedAt: tool.serverTools?.refreshedAt ?? null,
    tools: (tool.serverTools?.tools ?? []).map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: t.annotations ?? {},
      allowed: p.allowedTools.includes(t.name),
      requiresApproval: approvalOf(p.toolApproval, t),
    })),
  };
}

function mcpTool(tool: ToolItem) {
  if (!isMcp(tool)) throw conflict('This tool is not an MCP Server tool');
  return tool;
}

/** The server's tools as read at the last refresh (none before the first). */
export async function listServerTools(tenantId: string, id: string) {
  return toServerTools(mcpTool(await getTool(tenantId, id)));
}

/**
 * Reads the server's tools again and keeps them. When an allowed tool's schema, description or
 * annotations changed since approval, the tool goes back to review (PENDING), as any change to
 * what a SystemAdmin approved does; until then the model keeps seeing nothing new.
 */
export async function refreshServerTools(tenantId: string, id: string, actor: Principal) {
  const tool = mcpTool(await getTool(tenantId, id));
  editable(tool);
  let listed: unknown[];
  try {
    const access = await accessOf(tool);
    listed = await withMcpClient(access, async (client, signal) => {
      const tools: unknown[] = [];
      let cursor: string | undefined;
      // Pages until the server's list ends or the kept list could hold no more.
      for (let page = 0; page < 10 && tools.length <= MCP_LIMITS.tools; page++) {
        const r = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout: access.timeoutMs });
        tools.push(...r.tools);
        cursor = r.nextCursor;
        if (!cursor) break;
      }
      return tools;
    });
  } catch (err) {
    if (err instanceof McpUnavailable) throw mcpServerFailed(err.message);
    throw err;
  }
  const { tools, skipped } = keepServerTools(listed);
  const before = tool.serverTools?.tools ?? [];
  const changed = approvedToolsChanged(before, tools, toParams(tool).allowedTools);
  const serverTools = { tools, refreshedAt: new Date().toISOString() };
  const after = await changeTool(
    tenantId,
    tool,
    { serverTools },
    actor,
    'mcp-refresh',
    { serverTools: tools.map((t) => t.name), ...(changed ? { approvedToolsChanged: true } : {}) },
    changed,
  );
  return { ...toServerTools(after), status: after.status, skipped };
}
