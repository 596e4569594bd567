/** What the conversations area uses of the agents area: the one module of agents it imports. */
export { agentNotPublished, agentPromptMissing, agentUnavailable, TURN_REFUSALS } from './errors.ts';
export { publishedAgent } from './published.ts';
export { citationSchema } from './citations.ts';
export { runTurnStream } from './runtime.ts';
export type { TurnEvent, TurnResult } from './runtime.ts';
export type { AgentSnapshot } from './snapshot.ts';
export { widgetByKey, widgetLimits } from './widgets.ts';
export { normalOrigin } from './widget-records.ts';
export { countRequested, decideAction, expireAction, resumeTurn } from './decide-action.ts';
export type { Decision, Resumable } from './decide-action.ts';
export { actionAlreadyDecided, actionExpired, toolNoLongerOnAgent } from './errors.ts';
export { ACTION_STATUSES, listActions, overdueActions, pauseWrites, toAction } from './pending-actions.ts';
export type { ActionRecord, Owner } from './pending-actions.ts';
