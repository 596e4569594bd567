import type { z } from 'zod/mini';
import { once } from '#shared/routes/types.ts';
import type { ToolItem } from '#areas/tools/records.ts';

/**
 * One built-in tool type as one value (as vercel/ai's `Tool` and openai-agents' `FunctionTool` are):
 * what its arguments are (`inputSchema`, which the model is shown and every call is parsed with),
 * whether a call changes something outside the conversation (`sideEffects`, which decides when a
 * person must approve it), how it runs, and what the model reads of its outcome. `runTool` is a
 * lookup of the type by the tool's code (run-tool.ts).
 */
export interface ToolType<S extends z.ZodMiniType = z.ZodMiniType> {
  /** The built-in tools' codes this type runs (the five send-message tools share one type). */
  codes: readonly string[];
  /** Built on first use (a function's cold start builds no schema it does not use). */
  inputSchema: () => S;
  sideEffects(args: z.output<S>): boolean;
  execute(tool: ToolItem, args: z.output<S>, ctx: ToolContext): Promise<ToolOutcome>;
  /** What goes back to the model: a summary of the result, or the error. */
  toModelOutput(outcome: ToolOutcome): string;
  /** The model's reading of arguments the schema refused (default: each issue's path and message). */
  refuseArguments(issues: readonly { path: PropertyKey[]; message: string }[]): string;
}

export const defineToolType = <S extends z.ZodMiniType>(
  t: Omit<ToolType<S>, 'toModelOutput' | 'refuseArguments'> &
    Partial<Pick<ToolType<S>, 'toModelOutput' | 'refuseArguments'>>,
): ToolType<S> => ({
  toModelOutput: summaryOf(SUMMARY),
  refuseArguments: invalidArguments,
  ...t,
  inputSchema: once(t.inputSchema),
});

const invalidArguments = (issues: readonly { path: PropertyKey[]; message: string }[]) =>
  `Invalid arguments: ${issues
    .slice(0, 3)
    .map((i) => `${i.path.map(String).join('.') || 'arguments'}: ${i.message}`)
    .join('; ')}. Nothing was done.`;

/**
 * What one tool call gives back: ok with a result, or an error the model can explain.
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

export const notAvailable = (tool: Pick<ToolItem, 'displayName'>): ToolOutcome => ({
  ok: false,
  error: `The tool "${tool.displayName}" is not available in this deployment; nothing was done.`,
});

/** How much of a result the model reads: enough for an answer, bounded for its context. */
const SUMMARY = 500;

/** The result as text, cut at `max` characters; an error as the model is told it. */
export const summaryOf =
  (max: number) =>
  (out: ToolOutcome): string => {
    if (!out.ok) return `Error: ${out.error}`;
    const s = typeof out.result === 'string' ? out.result : (JSON.stringify(out.result) ?? '');
    return s.length > max ? `${s.slice(0, max)}…` : s;
  };
