import type { Params } from './records.ts';
/**
 * Tool lifecycle: a tenant tool starts PENDING; a SystemAdmin approves (APPROVED), activates
 * (ACTIVE) or rejects it (REJECTED). Only ACTIVE tools are offered to agents. Changing what a
 * SystemAdmin approved (the connection, the read-only flag) resubmits the tool: back to PENDING.
 */
export const TOOL_STATUSES = ['PENDING', 'APPROVED', 'ACTIVE', 'REJECTED'] as const;
export type ToolStatus = (typeof TOOL_STATUSES)[number];
export type ToolAction = 'approve' | 'activate' | 'reject' | 'resubmit';
/** The moves a SystemAdmin makes through the tool routes. */
export type AdminToolAction = Exclude<ToolAction, 'resubmit'>;

const MOVES: Record<ToolAction, Partial<Record<ToolStatus, ToolStatus>>> = {
  approve: { PENDING: 'APPROVED' },
  activate: { APPROVED: 'ACTIVE' },
  reject: { PENDING: 'REJECTED', APPROVED: 'REJECTED' },
  resubmit: { APPROVED: 'PENDING', ACTIVE: 'PENDING' },
};

/** The status a tool moves to, or null when the move is not allowed (409). */
export const nextToolStatus = (from: ToolStatus, action: ToolAction): ToolStatus | null => MOVES[action][from] ?? null;

export const toolMoveTable = () =>
  (Object.keys(MOVES) as ToolAction[]).flatMap((action) =>
    Object.entries(MOVES[action]).map(([from, to]) => ({ action, from: from as ToolStatus, to: to! })),
  );

/** A SystemAdmin has looked at the tool: the states an approval leads to. */
const isApproved = (status: ToolStatus) => status === 'APPROVED' || status === 'ACTIVE';

/**
 * Db Execute changes data, so writes may be switched on (`readOnly` from true to false) only once
 * a SystemAdmin has approved the tool; doing so resubmits it for review. A tool that already
 * writes keeps that while it waits. Every other tool may choose freely.
 */
export const writeAccessRefusal = (
  baseToolCode: string,
  status: ToolStatus,
  readOnly: boolean,
  wasReadOnly = true,
): string | null =>
  baseToolCode === 'db_execute' && !readOnly && wasReadOnly && !isApproved(status)
    ? 'Db Execute tools can be set to readOnly false only after a SystemAdmin has approved the tool'
    : null;

/** Agents a tool may name per update (the route's limit). */
export const MAX_AGENT_IDS = 100;
/** Step 2 parameter ranges and the tables a step 1 schema may list. */
export const PARAM_LIMITS = {
  maxRows: { min: 1, max: 10_000 },
  timeoutSeconds: { min: 1, max: 300 },
  maxSteps: { min: 1, max: 25 },
  /** A pending call waits at most a week for a person. */
  approvalTimeoutMinutes: { min: 1, max: 10_080 },
  /** MCP Server: an answer of the server, and what the model reads of a result. */
  maxResponseBytes: { min: 1024, max: 1024 * 1024 },
  maxResultChars: { min: 100, max: 20_000 },
} as const;
export const MAX_TABLES = 200;
/**
 * Where an HTTP Request tool may connect (exact host names) and whom a Send Email tool may write to
 * (addresses, or domains whose every address is allowed): at most this many entries each.
 */
export const MAX_ALLOWED_HOSTS = 50;
export const MAX_ALLOWED_RECIPIENTS = 50;

/**
 * Whether a change of the allow-lists reaches further than what a SystemAdmin approved: any entry
 * that was not there before. Narrowing a list (removing entries) is always safe.
 */
type Reach = Pick<Params, 'allowedHosts' | 'allowedRecipients' | 'channelId' | 'allowedChannelRecipients'> &
  Partial<Pick<Params, 'calendarId'>>;
export const widensReach = (before: Reach, after: Reach) =>
  after.allowedHosts.some((h) => !before.allowedHosts.includes(h)) ||
  after.allowedRecipients.some((r) => !before.allowedRecipients.includes(r)) ||
  (after.channelId !== before.channelId && after.channelId !== null) ||
  (!!after.calendarId && after.calendarId !== before.calendarId) ||
  after.allowedChannelRecipients.some((r) => !before.allowedChannelRecipients.includes(r));

/**
 * Whether a Send Email tool's configured recipients allow an address: an entry with `@` is one
 * exact address, an entry without is a domain whose addresses (not its subdomains') are allowed.
 */
export const recipientAllowed = (allowed: string[], address: string) => {
  const a = address.toLowerCase();
  const domain = a.slice(a.lastIndexOf('@') + 1);
  return allowed.some((r) => (r.includes('@') ? r === a : r === domain));
};
