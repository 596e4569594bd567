/** What the tools area uses of the channels area: the send-message tools' connection, window and queue. */
export { channelById, channelTypeOf } from './lookups.ts';
export { lastInboundAt, WHATSAPP_WINDOW_MS } from './last-inbound.ts';
export { sendChannelMessage } from './queue.ts';
