import { SEND_TOOL_CHANNELS } from './built-in-tools.ts';

/**
 * Which calls change something outside the conversation, and so may wait for a person
 * (docs/decisions/tools.md, "Approval"). Keyed on the built-in tool's code, so a tool type that
 * gains its executor later (Browser Action, Manage Schedule) is covered the day it lands.
 */
const ALWAYS_SIDE_EFFECTING = new Set<string>([
  'send_email',
  'db_execute',
  'browser_action',
  'manage_schedule',
  ...Object.keys(SEND_TOOL_CHANNELS),
]);

/** A Manage Schedule call that only reads (free slots, the list): any other action books, moves or cancels. */
const SCHEDULE_READS = /^(list|read|get|find|search|slots?|free|availability|available|show|view)(_|$)/i;
const READ_METHODS = new Set(['GET', 'HEAD']);

/** Whether a new tool of this type asks a person before each side-effecting call, until its owner says otherwise. */
export const approvalByDefault = (baseToolCode: string) => ALWAYS_SIDE_EFFECTING.has(baseToolCode);

/** Whether this call, with these arguments, would change something outside the conversation. */
export function isSideEffecting(baseToolCode: string, args: Record<string, unknown>): boolean {
  if (baseToolCode === 'manage_schedule') {
    const action = args.action ?? args.operation ?? args.op;
    // An action the tool does not name as a read is treated as a write: the safe side of an unknown shape.
    return !(typeof action === 'string' && SCHEDULE_READS.test(action.trim()));
  }
  if (baseToolCode === 'http_request') return !READ_METHODS.has(String(args.method ?? 'GET').toUpperCase());
  return ALWAYS_SIDE_EFFECTING.has(baseToolCode);
}

export interface ApprovalSetting {
  baseToolCode: string;
  configParams?: { requiresApproval?: boolean } | null;
}

/**
 * Whether a person must approve this call before it runs: the tool's setting (its type's default
 * when unset) for its side-effecting calls, and always, whatever the setting, when the turn's model
 * input holds material nobody vouches for (a flagged chunk, a tool result, a web page).
 */
export function needsApproval(tool: ApprovalSetting, args: Record<string, unknown>, untrusted: boolean): boolean {
  const setting = tool.configParams?.requiresApproval ?? approvalByDefault(tool.baseToolCode);
  const sideEffecting = isSideEffecting(tool.baseToolCode, args);
  if (untrusted && sideEffecting) return true;
  // A read of a schedule never waits; a tool its owner set to approval otherwise always does.
  if (tool.baseToolCode === 'manage_schedule') return setting && sideEffecting;
  return setting;
}
