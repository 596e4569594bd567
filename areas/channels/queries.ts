import { defineQuery } from '#shared/data/queries.ts';

/** Whether the agent is one of the tenant's live agents (a connection serves one): the agents area answers. */
export const LIVE_AGENT = defineQuery<[tenantId: string, agentId: string], boolean>('channels.live-agent');
