/** What the conversations area uses of the channels area: a conversation's connection, and sending on it. */
export { channelById } from './lookups.ts';
export type { ChannelRecord } from './connections.ts';
export { sendChannelMessage } from './queue.ts';
