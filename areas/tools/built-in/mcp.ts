import * as z from 'zod/mini';
import { once } from '#shared/routes/types.ts';
import { compileSchema, firstIssue } from '#areas/llm-gateway/for-tools.ts';
import { accessOf } from '#areas/tools/mcp/access.ts';
import { McpUnavailable, withMcpClient, withoutSecret } from '#areas/tools/mcp/client.ts';
import { resultText } from '#areas/tools/mcp/result-text.ts';
import type { ToolFunction } from '#areas/tools/mcp/server-tools.ts';
import { toParams } from '#areas/tools/records.ts';
import { defineToolType, type ToolOutcome } from './definition.ts';

/**
 * An MCP server's tool: the arguments are checked against the server's input schema as it was
 * approved (the model is shown that schema), then sent in a session of their own. A server's
 * refusal, a tool error or a network failure is an outcome the model reads, never a failed turn.
 * Whether a call waits for a person is the tool's per-server-tool setting (approval.ts).
 */
async function mcpCall(tool: ToolFunction, args: Record<string, unknown>): Promise<ToolOutcome> {
  const st = tool.serverTool;
  if (!st)
    return { ok: false, error: `The tool "${tool.displayName}" names no allowed server tool; nothing was done.` };
  const compiled = await compileSchema(st.inputSchema);
  if ('error' in compiled) return { ok: false, error: `The server's schema for ${st.name} is ${compiled.error}` };
  if (!compiled.validate(args))
    return { ok: false, error: `Invalid arguments: ${firstIssue(compiled.validate)}. Nothing was done.` };
  let secret: string | null = null;
  try {
    const access = await accessOf(tool);
    secret = access.secret;
    const r = await withMcpClient(access, (client, signal) =>
      client.callTool({ name: st.name, arguments: args }, { signal, timeout: access.timeoutMs }),
    );
    const text = withoutSecret(resultText(r, toParams(tool).maxResultChars), secret);
    return r.isError ? { ok: false, error: text || 'The server reported an error' } : { ok: true, result: text };
  } catch (err) {
    const message = err instanceof McpUnavailable ? err.message : 'The MCP server failed';
    return { ok: false, error: withoutSecret(message, secret) };
  }
}

export const mcpTool = defineToolType({
  codes: ['mcp'],
  // The server's own schema is the contract (checked in mcpCall); this only takes the object through.
  inputSchema: once(() => z.looseObject({})),
  sideEffects: () => true,
  execute: (tool, args) => mcpCall(tool as ToolFunction, args as Record<string, unknown>),
  toModelOutput: (o) => (o.ok ? String(o.result) : `Error: ${o.error}`),
});
