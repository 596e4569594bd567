/** What the conversations area uses of the connector area: the one module of connector it imports. */
export { sendChannelMessage } from './queue.ts';
