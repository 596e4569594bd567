import type { ToolItem } from '#areas/tools/records.ts';

/** What one tool call gives the model back: ok with a result, or an error it can explain. */
export type ToolOutcome = { ok: true; result: unknown } | { ok: false; error: string };

export interface ToolContext {
  tenantId: string;
  agentId: string;
  requestId: string;
}

export type ToolExecutor = (tool: ToolItem, args: Record<string, unknown>, ctx: ToolContext) => Promise<ToolOutcome>;

/**
 * Executors by the base tool's code. A code without one answers "not available", explicitly, so
 * an agent never claims a tool ran (docs/decisions.md, "AI agent runtime").
 */
const executors = new Map<string, ToolExecutor>();

export const registerExecutor = (code: string, run: ToolExecutor) => executors.set(code, run);

export const notAvailable = (tool: Pick<ToolItem, 'displayName'>): ToolOutcome => ({
  ok: false,
  error: `The tool "${tool.displayName}" is not available in this deployment; nothing was done.`,
});

export async function runTool(tool: ToolItem, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const run = executors.get(tool.baseToolCode);
  if (!run) return notAvailable(tool);
  try {
    return await run(tool, args, ctx);
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : 'The tool failed' };
  }
}
