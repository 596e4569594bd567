import type { ToolItem } from '#areas/tools/records.ts';

/**
 * What one tool call gives the model back: ok with a result, or an error it can explain.
 * `untrusted` names where the content came from when an outsider wrote it (a web page's text), so
 * the runtime can treat it as such beyond the framing every tool result gets.
 */
export type ToolOutcome =
  | { ok: true; result: unknown; untrusted?: 'web-page' }
  | { ok: false; error: string; untrusted?: 'web-page' };

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
