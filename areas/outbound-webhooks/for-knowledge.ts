/** What the knowledge area uses of outbound webhooks: telling subscribers of its events. */
export { publishEvent, publishEvents } from './publish.ts';
