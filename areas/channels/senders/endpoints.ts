import { config } from '#shared/platform/config.ts';
import type { ChannelType } from '../channel-types.ts';

/**
 * Where each platform's API is. Deployed functions use the platforms' real URLs unless a setting
 * overrides one; locally (and in tests) an unset setting means the local stand-in on this server
 * (`local/channels.ts`, under `/_local/channels/{platform}`), so nothing local ever reaches a platform.
 */
const REAL = {
  slack: 'https://slack.com/api',
  telegram: 'https://api.telegram.org',
  whatsapp: 'https://graph.facebook.com/v21.0',
  discord: 'https://discord.com/api/v10',
  teamsLogin: 'https://login.microsoftonline.com',
  teamsOpenId: 'https://login.botframework.com/v1/.well-known/openidconfiguration',
} as const;

export type Endpoint = keyof typeof REAL | 'teamsService';

export const ENDPOINT_SETTINGS: Record<Endpoint, string> = {
  slack: 'CHANNEL_SLACK_API_URL',
  telegram: 'CHANNEL_TELEGRAM_API_URL',
  whatsapp: 'CHANNEL_WHATSAPP_API_URL',
  discord: 'CHANNEL_DISCORD_API_URL',
  teamsLogin: 'CHANNEL_TEAMS_LOGIN_URL',
  /** The Bot Connector's OpenID metadata, whose jwks_uri signs the activities a bot receives. */
  teamsOpenId: 'CHANNEL_TEAMS_OPENID_URL',
  /** Replaces every Teams serviceUrl (the Bot Framework has no single base URL: each activity names its own). */
  teamsService: 'CHANNEL_TEAMS_SERVICE_URL',
};

const LOCAL_PATH: Record<Endpoint, `${ChannelType}${string}`> = {
  slack: 'slack',
  telegram: 'telegram',
  whatsapp: 'whatsapp',
  discord: 'discord',
  teamsLogin: 'teams/login',
  teamsOpenId: 'teams/openid',
  teamsService: 'teams',
};

const isDeployed = () => !!process.env.AWS_LAMBDA_FUNCTION_NAME;

/** The stand-in's base for an endpoint on a local server at `baseUrl`. */
export const localEndpoint = (baseUrl: string, endpoint: Endpoint) =>
  `${baseUrl}/_local/channels/${LOCAL_PATH[endpoint]}`;

/** The base URL of an endpoint, without a trailing slash; null for the Teams service URL when not overridden. */
export function endpoint(name: Endpoint): string | null {
  const set = process.env[ENDPOINT_SETTINGS[name]];
  if (set) return set.replace(/\/+$/, '');
  if (!isDeployed()) return localEndpoint(config.publicBaseUrl, name);
  return name === 'teamsService' ? null : REAL[name];
}
