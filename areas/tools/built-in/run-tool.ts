import { safeParse, toJSONSchema } from 'zod/mini';
import type { ToolItem } from '#areas/tools/records.ts';
import { browserAction } from './browser-action.ts';
import { dbExecute, dbQuery } from './database.ts';
import { notAvailable, type ToolContext, type ToolOutcome, type ToolType } from './definition.ts';
import { httpRequest } from './http-request.ts';
import { manageSchedule } from './manage-schedule.ts';
import { mcpTool } from './mcp.ts';
import type { ToolFunction } from '#areas/tools/mcp/server-tools.ts';
import { sendEmail } from './send-email.ts';
import { sendMessage } from './send-message.ts';

/** Every built-in tool type; a code without one answers "not available" (docs/decisions/tools.md, "Executors"). */
const TYPES: readonly ToolType[] = [
  httpRequest,
  browserAction,
  sendEmail,
  dbQuery,
  dbExecute,
  manageSchedule,
  sendMessage,
  mcpTool,
] as unknown as ToolType[];
const BY_CODE = new Map(TYPES.flatMap((t) => t.codes.map((code) => [code, t] as const)));

export const toolTypeOf = (tool: Pick<ToolItem, 'baseToolCode'>) => BY_CODE.get(tool.baseToolCode);

/** The call's arguments as its type takes them, or the sentence the model reads instead. */
function argumentsOf(type: ToolType, args: Record<string, unknown>) {
  const parsed = safeParse(type.inputSchema(), args);
  return parsed.success
    ? { ok: true as const, args: parsed.data }
    : { ok: false as const, error: type.refuseArguments(parsed.error.issues) };
}

/** One call: arguments parsed by the type's schema, run, a failure answered as an outcome the model can read. */
export async function runTool(tool: ToolItem, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const type = toolTypeOf(tool);
  if (!type) return notAvailable(tool);
  const parsed = argumentsOf(type, args);
  if (!parsed.ok) return { ok: false, error: parsed.error };
  try {
    return await type.execute(tool, parsed.args, ctx);
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : 'The tool failed' };
  }
}

/** What the model reads of an outcome, as the tool's type gives it. */
export const modelOutput = (tool: Pick<ToolItem, 'baseToolCode'>, out: ToolOutcome) =>
  (toolTypeOf(tool)?.toModelOutput ?? ((o: ToolOutcome) => (o.ok ? String(o.result) : `Error: ${o.error}`)))(out);

/**
 * Whether this call would change something outside the conversation. A call whose arguments the
 * type's schema refuses changes nothing: it is refused before it runs, so it waits for nobody.
 */
export function isSideEffecting(
  tool: Pick<ToolFunction, 'baseToolCode' | 'serverTool'>,
  args: Record<string, unknown>,
): boolean {
  // A server's read-only tool says so in its annotations; any other may change something.
  if (tool.serverTool) return tool.serverTool.annotations?.readOnlyHint !== true;
  const type = toolTypeOf(tool);
  if (!type) return false;
  const parsed = argumentsOf(type, args);
  return parsed.ok && type.sideEffects(parsed.args);
}

const schemas = new Map<ToolType, Record<string, unknown>>();
/** What the model is told a tool takes: its type's input schema, as JSON Schema (an MCP server's own, as approved). */
export function toolParameters(tool: Pick<ToolFunction, 'baseToolCode' | 'serverTool'>): Record<string, unknown> {
  if (tool.serverTool) {
    const { $schema: _, ...rest } = tool.serverTool.inputSchema;
    return rest;
  }
  const type = toolTypeOf(tool);
  if (!type) return { type: 'object', additionalProperties: true };
  let schema = schemas.get(type);
  if (!schema) {
    const { $schema: _, ...rest } = toJSONSchema(type.inputSchema(), {
      target: 'draft-2020-12',
      io: 'input',
    }) as Record<string, unknown>;
    schema = rest;
    schemas.set(type, schema);
  }
  return schema;
}
