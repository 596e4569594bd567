/** What the knowledge area uses of the agents area: the one module of agents it imports. */
export { agentList } from './records.ts';
export { unbindKnowledgeBase } from './unbind-base.ts';
