/** What the connector area uses of the conversations area: the one module of conversations it imports. */
export { recordDelivery } from './delivery-status.ts';
export { runChannelTurn } from './channel.ts';
