/** What the knowledge area uses of outbound webhooks: telling subscribers of its events. */
export { publishEvent } from './publish.ts';
