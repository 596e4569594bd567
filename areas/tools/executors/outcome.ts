import type { ToolItem } from '#areas/tools/records.ts';

/** What one tool call gives the model back: ok with a result, or an error it can explain. */
export type ToolOutcome = { ok: true; result: unknown } | { ok: false; error: string };

export interface ToolContext {
  tenantId: string;
  agentId: string;
  requestId: string;
  /** The conversation the turn belongs to; absent for a playground turn. */
  conversationId?: string;
}

export type ToolExecutor = (tool: ToolItem, args: Record<string, unknown>, ctx: ToolContext) => Promise<ToolOutcome>;

export const notAvailable = (tool: Pick<ToolItem, 'displayName'>): ToolOutcome => ({
  ok: false,
  error: `The tool "${tool.displayName}" is not available in this deployment; nothing was done.`,
});
