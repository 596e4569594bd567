/** What the agents area uses of the connector area: the one module of connector it imports. */
export { CHANNEL_TYPES } from './channel-types.ts';
export type { ChannelType } from './channel-types.ts';
export { CHANNEL_CREDENTIALS, channelSecretName, TEAMS_MODES } from './credentials.ts';
