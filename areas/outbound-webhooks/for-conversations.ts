/** What the conversations area uses of outbound webhooks: telling subscribers of its events. */
export { publishEvents } from './publish.ts';
