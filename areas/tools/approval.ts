import { approvalByDefault } from './built-in-tools.ts';
import { isSideEffecting } from './built-in/run-tool.ts';
import { approvalOf, type ServerTool } from './mcp/server-tools.ts';

/**
 * When a call waits for a person (docs/decisions/tools.md, "Approval"): whether a call changes
 * something outside the conversation is its tool type's to say (`sideEffects`); whether a tool asks
 * by default is its built-in tool's (`approvalByDefault`, in the catalog).
 */
export interface ApprovalSetting {
  baseToolCode: string;
  configParams?: { requiresApproval?: boolean; toolApproval?: Record<string, boolean> } | null;
  /** An MCP tool's function: the server tool it calls (its setting is per server tool). */
  serverTool?: ServerTool;
}

/**
 * Whether a person must approve this call before it runs: the tool's setting (its type's default
 * when unset) for its side-effecting calls, and always, whatever the setting, when the turn's model
 * input holds material nobody vouches for (a flagged chunk, a tool result, a web page).
 */
export function needsApproval(tool: ApprovalSetting, args: Record<string, unknown>, untrusted: boolean): boolean {
  const setting = tool.serverTool
    ? approvalOf(tool.configParams?.toolApproval, tool.serverTool)
    : (tool.configParams?.requiresApproval ?? approvalByDefault(tool.baseToolCode));
  const sideEffecting = isSideEffecting(tool, args);
  if (untrusted && sideEffecting) return true;
  // A read of a schedule never waits; a tool its owner set to approval otherwise always does.
  if (tool.baseToolCode === 'manage_schedule') return setting && sideEffecting;
  return setting;
}
