/** What the conversations area uses of the agents area: the one module of agents it imports. */
export { channelById } from './channels.ts';
export type { ChannelRecord } from './channels.ts';
export { requireAgents } from './entitlements.ts';
export { agentPromptMissing, agentUnavailable, featureNotInPlan, TURN_REFUSALS } from './errors.ts';
export { runTurnStream } from './runtime.ts';
export type { TurnEvent, TurnResult } from './runtime.ts';
export { agentKey, agentVersionKey } from './snapshot.ts';
export type { AgentSnapshot } from './snapshot.ts';
export { widgetByKey, widgetLimits } from './widgets.ts';
