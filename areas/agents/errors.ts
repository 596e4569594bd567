import { MODEL_CALL_REFUSALS } from '#areas/llm-gateway/for-agents.ts';
import { defineError } from '#shared/http/errors.ts';

export const planLimitReached = defineError(
  409,
  'PLAN_LIMIT_REACHED',
  (limit: 'maxAgents' | 'maxWidgetIntegrations') => `The plan's limit (${limit}) is reached`,
  { example: ['maxAgents'] },
);
export const concurrentUpdate = defineError(409, 'CONCURRENT_UPDATE', 'The agent changed meanwhile; read it again');
export const promptNotFound = defineError(409, 'PROMPT_NOT_FOUND', "The agent's prompt no longer exists");
/** Publishing names its own step; the playground runs the draft. */
export const noActivePromptVersion = defineError(
  409,
  'NO_ACTIVE_PROMPT_VERSION',
  (message: string = "The agent's prompt has no Active version") => message,
);
export const agentPromptMissing = defineError(
  409,
  'AGENT_PROMPT_MISSING',
  "The agent's prompt version no longer exists",
);
/**
 * The model, a retrieval or the platform behind them failed: what a visitor or the playground hears
 * instead of the gateway's own 5xx (its provider names and codes are not theirs to see), never a 500.
 */
export const agentUnavailable = defineError(
  503,
  'AGENT_UNAVAILABLE',
  'The agent could not answer right now; try again',
  { retryAfterSeconds: 1 },
);

/** The gateway's refusals a turn passes on: those the caller can act on (allowance, tenant state, model). */
export const TURN_REFUSALS = MODEL_CALL_REFUSALS.filter((e) => e.status < 500);

/** A held tool call someone already approved or rejected (or that expired): decided once, by one person. */
export const actionAlreadyDecided = defineError(
  409,
  'ACTION_ALREADY_DECIDED',
  (status: string = 'Approved') => `This action is already ${status}`,
);
/** A held tool call left undecided past its expiry counts as rejected and can no longer be approved. */
export const actionExpired = defineError(409, 'ACTION_EXPIRED', 'This action expired before it was decided');
/** A widget's or channel's agent is no longer Published (or was deleted): its conversations stop. */
export const agentNotPublished = defineError(
  409,
  'AGENT_NOT_PUBLISHED',
  'The agent is not published; publish it to take conversations',
);
/** A held turn whose stored state this deploy cannot read (agents/paused-state.ts). */
export const pausedTurnUnreadable = defineError(
  409,
  'PAUSED_TURN_UNREADABLE',
  (why: string = 'its state has version 9; this deploy reads versions 0 to 1') =>
    `The paused turn cannot be resumed: ${why}`,
);
/** A held call approved after its tool left the agent (its published version, or the draft for the playground). */
export const toolNoLongerOnAgent = defineError(
  409,
  'TOOL_NO_LONGER_ON_AGENT',
  'The tool was removed from the agent after the call was held; it did not run',
);
