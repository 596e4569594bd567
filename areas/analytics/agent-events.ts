import { writeItem } from '#shared/data/write-one.ts';
import { updateItem } from '#shared/data/commit.ts';
import { agentDay } from './records.ts';

/** Events the agent's stats count beside conversations: a cap reached, an off-topic question declined. */
export type AgentEvent =
  | 'cap_dailyTokens'
  | 'cap_visitorTokens'
  | 'cap_sessionTurns'
  | 'cap_userDailyTokens'
  | 'declinedOffTopic';

/** One event on the agent's day aggregate (the item its stats sum), to write with what caused it. */
export function agentEventWrite(tenantId: string, agentId: string, event: AgentEvent, now = Date.now()) {
  const day = new Date(now).toISOString().slice(0, 10);
  return updateItem(agentDay(tenantId, agentId, day), { day }, { add: { [event]: 1 } });
}

export const countAgentEvent = (tenantId: string, agentId: string, event: AgentEvent) =>
  writeItem(agentEventWrite(tenantId, agentId, event));
