import type { ChannelType } from './channel-types.ts';

/**
 * A channel connection with its credentials resolved (the agents area owns the record,
 * `{tenantId}#CHANNEL` / id, and resolves its `vault://tenants/...` references through
 * areas/vault/tenant-secrets.ts inside the function that sends). Only the sending credentials are
 * here; the inbound ones (signing secret, security token, app secret, verify token, secret token)
 * are read by the webhook route, and Discord's public key is not a secret.
 */
interface Base<T extends ChannelType> {
  id: string;
  tenantId: string;
  type: T;
}

export type SlackConnection = Base<'slack'> & { credentials: { botToken: string } };
export type TeamsConnection = Base<'teams'> & {
  /**
   * `appId`: the bot's Microsoft app id; `serviceUrl`: where the tenant's Teams conversations live
   * (the inbound activity's serviceUrl wins when replying); `azureTenantId`: a single-tenant bot's
   * directory (default `botframework.com`, the multi-tenant token authority).
   */
  settings: { appId: string; serviceUrl?: string; azureTenantId?: string };
  credentials: { appPassword: string };
};
export type WhatsAppConnection = Base<'whatsapp'> & {
  settings: { phoneNumberId: string };
  credentials: { accessToken: string };
};
export type TelegramConnection = Base<'telegram'> & { credentials: { botToken: string } };
export type DiscordConnection = Base<'discord'> & {
  settings: { applicationId: string };
  credentials: { botToken: string };
};

export type ChannelConnection =
  | SlackConnection
  | TeamsConnection
  | WhatsAppConnection
  | TelegramConnection
  | DiscordConnection;

/** What to send: the text and where (the reply context comes from the inbound event's `replyTo`). */
export interface OutboundMessage {
  /** Slack channel or user id, Teams conversation id, WhatsApp phone, Telegram chat id, Discord channel id. */
  recipient: string;
  text: string;
  /** Slack thread_ts; Teams activity id replied to. */
  threadId?: string;
  /** Teams: the inbound activity's serviceUrl. */
  serviceUrl?: string;
  /** Discord: answer as a follow-up of this interaction instead of a bot message in the channel. */
  interactionToken?: string;
  /** WhatsApp: send this approved template instead of the text (outside the 24-hour window). */
  template?: { name: string; language: string; parameters: string[] };
  /** Teams: a proactive message, sent into the conversation this stored reference names. */
  teamsReference?: TeamsConversationReference;
}

/**
 * What the Bot Framework needs to message someone first (its ConversationReference): the service
 * URL and conversation the Bot Connector gave in an inbound activity, the bot's and the user's
 * accounts there, and the user's Microsoft Entra tenant. Only an activity teaches it.
 */
export interface TeamsConversationReference {
  serviceUrl: string;
  channelId: string;
  conversation: { id: string; conversationType?: string; tenantId?: string };
  bot: { id: string; name?: string };
  user: { id: string; name?: string; aadObjectId?: string };
}

export interface SendResult {
  /** The platform's id of the (last) message sent: Slack ts, Teams activity id, wamid, Telegram message_id, Discord message id. */
  platformMessageId: string;
}
