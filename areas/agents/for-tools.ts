/** What the tools area uses of the agents area: the one module of agents it imports. */
export { agentKey } from './snapshot.ts';
export { channelById } from './channels.ts';
export { channelKey } from './records.ts';
