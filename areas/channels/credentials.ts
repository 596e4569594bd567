import { resolveTenantSecret, tenantSecretReference } from '#areas/vault/for-channels.ts';
import type { ChannelType } from './channel-types.ts';
import type { ChannelConnection } from './connection.ts';

/**
 * Where a connection's credentials live: each is a tenant secret (areas/vault/tenant-secrets.ts)
 * named `channels/{channelId}/{credential}`, so its reference is
 * `vault://tenants/{tenantId}/channels/{channelId}/{credential}`; the connection record keeps only
 * the references (under `secretRefs`, by credential), never a value. The inbound ones are read by the
 * webhook route, the sending ones by the channel worker.
 */
export const CHANNEL_CREDENTIALS = {
  slack: { inbound: ['signing-secret'], sending: ['bot-token'], settings: [] },
  teams: { inbound: ['security-token'], sending: ['app-password'], settings: ['appId'] },
  whatsapp: { inbound: ['app-secret', 'verify-token'], sending: ['access-token'], settings: ['phoneNumberId'] },
  telegram: { inbound: ['secret-token'], sending: ['bot-token'], settings: [] },
  discord: { inbound: [], sending: ['bot-token'], settings: ['applicationId', 'publicKey'] },
} as const satisfies Record<
  ChannelType,
  { inbound: readonly string[]; sending: readonly string[]; settings: readonly string[] }
>;

export const channelSecretName = (channelId: string, credential: string) => `channels/${channelId}/${credential}`;
export const channelSecretReference = (tenantId: string, channelId: string, credential: string) =>
  tenantSecretReference({ tenantId, name: channelSecretName(channelId, credential) });

/** What a queued send names of its connection: no secret value, only references into the tenant's namespace. */
export interface ConnectionDescriptor {
  id: string;
  type: ChannelType;
  settings: Record<string, string>;
  /** Credential name (`bot-token`) -> `vault://tenants/{tenantId}/...` reference. */
  secretRefs: Record<string, string>;
}

/** A connection that cannot be used as it stands (a credential or setting missing): retrying will not help. */
export class ConnectionUnusableError extends Error {
  constructor(channelId: string, missing: string) {
    super(`Channel connection ${channelId} cannot send: ${missing} is not set`);
    this.name = 'ConnectionUnusableError';
  }
}

/**
 * The connection with its sending credentials resolved, inside the function that sends. Each reference
 * is checked against `tenantId`'s namespace again (403 SECRET_OUTSIDE_NAMESPACE outside it).
 */
export async function resolveConnection(tenantId: string, d: ConnectionDescriptor): Promise<ChannelConnection> {
  const secret = async (name: string) => {
    const ref = d.secretRefs[name];
    const value = ref ? await resolveTenantSecret(tenantId, ref) : null;
    if (!value) throw new ConnectionUnusableError(d.id, name);
    return value;
  };
  const setting = (name: string) => {
    const value = d.settings[name];
    if (!value) throw new ConnectionUnusableError(d.id, name);
    return value;
  };
  const base = { id: d.id, tenantId };
  switch (d.type) {
    case 'slack':
      return { ...base, type: 'slack', credentials: { botToken: await secret('bot-token') } };
    case 'telegram':
      return { ...base, type: 'telegram', credentials: { botToken: await secret('bot-token') } };
    case 'whatsapp':
      return {
        ...base,
        type: 'whatsapp',
        settings: { phoneNumberId: setting('phoneNumberId') },
        credentials: { accessToken: await secret('access-token') },
      };
    case 'discord':
      return {
        ...base,
        type: 'discord',
        settings: { applicationId: setting('applicationId') },
        credentials: { botToken: await secret('bot-token') },
      };
    case 'teams':
      return {
        ...base,
        type: 'teams',
        settings: {
          appId: setting('appId'),
          ...(d.settings.serviceUrl ? { serviceUrl: d.settings.serviceUrl } : {}),
          ...(d.settings.azureTenantId ? { azureTenantId: d.settings.azureTenantId } : {}),
        },
        credentials: { appPassword: await secret('app-password') },
      };
  }
}

/**
 * How Teams reaches a connection: an outgoing webhook (HMAC with the security token; only @mentions
 * in channels) or the bot registration (the Bot Connector's JWT; personal chats and channels).
 */
export const TEAMS_MODES = ['outgoing-webhook', 'bot'] as const;
export type TeamsMode = (typeof TEAMS_MODES)[number];
