import { SEND_TOOL_CHANNELS } from '#areas/tools/built-in-tools.ts';
import type { ToolItem } from '#areas/tools/records.ts';
import { browserAction } from './browser-action.ts';
import { dbExecute, dbQuery } from './database.ts';
import { httpRequest } from './http-request.ts';
import { manageSchedule } from './manage-schedule.ts';
import { notAvailable, type ToolContext, type ToolExecutor, type ToolOutcome } from './outcome.ts';
import { sendEmail } from './send-email.ts';
import { sendMessage } from './send-message.ts';

/**
 * Executors by the base tool's code. A code without one answers "not available", explicitly, so
 * an agent never claims a tool ran (docs/decisions/tools.md, "Executors").
 */
const EXECUTORS: Readonly<Record<string, ToolExecutor>> = {
  http_request: httpRequest,
  browser_action: browserAction,
  send_email: sendEmail,
  db_query: dbQuery,
  db_execute: dbExecute,
  manage_schedule: manageSchedule,
  ...Object.fromEntries(Object.keys(SEND_TOOL_CHANNELS).map((code) => [code, sendMessage])),
};

export async function runTool(tool: ToolItem, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const run = Object.hasOwn(EXECUTORS, tool.baseToolCode) ? EXECUTORS[tool.baseToolCode] : undefined;
  if (!run) return notAvailable(tool);
  try {
    return await run(tool, args, ctx);
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : 'The tool failed' };
  }
}
