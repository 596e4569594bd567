/** What the conversations area uses of the analytics area: the one module of analytics it imports. */
export { conversationRecordWrites } from './ingest.ts';
export { agentEventWrite, countAgentEvent } from './agent-events.ts';
