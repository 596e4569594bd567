/** What the tools area uses of the connector area: the one module of connector it imports. */
export { WHATSAPP_WINDOW_MS, lastInboundAt } from './proactive.ts';
export { sendChannelMessage } from './queue.ts';
