/** What the prompts area uses of the agents area: the one module of agents it imports. */
export { runTurn } from './runtime.ts';
export type { AgentSnapshot } from './snapshot.ts';
