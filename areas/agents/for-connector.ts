/** What the connector area uses of the agents area: the one module of agents it imports. */
export { channelById } from './channels.ts';
export type { ChannelRecord } from './channels.ts';
