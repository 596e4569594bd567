import { expect } from 'vitest';
import { discordKeys, slackHeaders, teamsHeaders, telegramHeaders, whatsAppHeaders } from './channel-signing.ts';
import { publishedWidget } from './conversations.ts';
import { newTenant } from './fixtures.ts';
import { invoke } from './invoke.ts';
import { sentMessages } from './test-ports.ts';
import { tokenFor } from './tokens.ts';

/**
 * A tenant with a published agent and one connection per platform on demand, and inbound payloads
 * shaped like the platforms' own (field for field as their documentation's examples, with the
 * retries' headers), signed as each platform signs.
 */
export const SECRETS = {
  slack: 'slack-signing-secret-platforms',
  teams: Buffer.from('teams-security-token-platforms').toString('base64'),
  whatsapp: 'meta-app-secret-platforms',
  verify: 'meta-verify-token-platforms',
  telegram: 'telegram_secret_token_platforms',
  telegramBot: '7000001:telegram-bot-token-platforms',
};
export const discord = discordKeys();
export const TEAMS_APP_ID = '8f0e4b1c-0000-4000-8000-00000000000a';
export const DISCORD_APP_ID = '775799577604522054';
export const WHATSAPP_NUMBER = { id: '106540352242922', display: '+1 555-010-9999' };

export const CONNECTIONS = {
  slack: { secrets: { 'signing-secret': SECRETS.slack, 'bot-token': 'xoxb-platforms' } },
  teams: {
    settings: { appId: TEAMS_APP_ID },
    secrets: { 'security-token': SECRETS.teams, 'app-password': 'teams-app-password-platforms' },
  },
  whatsapp: {
    settings: { phoneNumberId: WHATSAPP_NUMBER.id },
    secrets: { 'app-secret': SECRETS.whatsapp, 'verify-token': SECRETS.verify, 'access-token': 'EAAG-platforms' },
  },
  telegram: { secrets: { 'secret-token': SECRETS.telegram, 'bot-token': SECRETS.telegramBot } },
  discord: {
    settings: { applicationId: DISCORD_APP_ID, publicKey: discord.publicKeyHex },
    secrets: { 'bot-token': 'MTA-discord-platforms' },
  },
} as const;
export type Platform = keyof typeof CONNECTIONS;

export async function tenantWithAgent() {
  const tenantId = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
  const owner = await tokenFor({ tenantId });
  const { agentId, widgetKey } = await publishedWidget(owner);
  return { tenantId, owner, agentId, widgetKey };
}

export async function connect(
  owner: string,
  agentId: string,
  type: Platform,
  extra: { settings?: Record<string, string>; secrets?: Record<string, string> } = {},
) {
  const base = CONNECTIONS[type] as { settings?: Record<string, string>; secrets: Record<string, string> };
  const res = await invoke('POST', '/api/ai/channels', {
    token: owner,
    body: {
      type,
      name: `${type} line`,
      agentId,
      ...(base.settings || extra.settings ? { settings: { ...base.settings, ...extra.settings } } : {}),
      secrets: { ...base.secrets, ...extra.secrets },
    },
  });
  expect(res).toAnswer(201);
  return res.json.result.id as string;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);
let seq = 50_000;
export const next = () => ++seq;

export const hook = (type: Platform, channelId: string, body: string, headers: Record<string, string>) =>
  invoke('POST', `/api/webhooks/${type}/${channelId}`, { rawBody: body, headers, contentType: 'application/json' });

/** The turns the webhook queued for a connection (the queue itself, not what the worker made of them). */
export const turnsOf = (channelId: string) =>
  sentMessages.filter((m) => m.queue === 'turns' && m.message.payload.channelId === channelId);

export const slack = {
  /** An Events API `event_callback` as Slack sends it, for a message in a DM (`message.im`) or a mention. */
  event(
    o: { eventId?: string; type?: 'message' | 'app_mention'; channel?: string; ts?: string; text?: string } & Record<
      string,
      unknown
    > = {},
  ) {
    const ts = o.ts ?? `${nowSeconds()}.${String(next()).padStart(6, '0')}`;
    const { eventId, type, channel, text, ...eventExtra } = o;
    return JSON.stringify({
      token: 'ZZZZZZWSxiZZZ2yIvs3peJ',
      team_id: 'T0PLATFORM',
      api_app_id: 'A0PLATFORM',
      event: {
        client_msg_id: crypto.randomUUID(),
        type: type ?? 'message',
        text: text ?? '<@U0BOT> When do you open?',
        user: 'U0LAURA',
        ts,
        team: 'T0PLATFORM',
        channel: channel ?? 'D0DM01',
        event_ts: ts,
        channel_type: (channel ?? 'D0DM01').startsWith('D') ? 'im' : 'channel',
        ...eventExtra,
      },
      type: 'event_callback',
      event_id: eventId ?? `Ev0${next()}`,
      event_time: nowSeconds(),
      authorizations: [
        { enterprise_id: null, team_id: 'T0PLATFORM', user_id: 'U0BOT', is_bot: true, is_enterprise_install: false },
      ],
      is_ext_shared_channel: false,
      event_context: '4-eyJldCI6Im1lc3NhZ2UiLCJ0aWQiOiJUMCJ9',
    });
  },
  /** Slack's headers, with its retry headers on a redelivery (`X-Slack-Retry-Num`, `X-Slack-Retry-Reason`). */
  headers: (body: string, retry?: number) => ({
    ...slackHeaders(SECRETS.slack, body, nowSeconds()),
    ...(retry ? { 'x-slack-retry-num': String(retry), 'x-slack-retry-reason': 'http_timeout' } : {}),
  }),
};

export const telegram = {
  update(
    o: { updateId?: number; messageId?: number; chat?: number; text?: string; from?: Record<string, unknown> } = {},
  ) {
    const chat = o.chat ?? 4242;
    return JSON.stringify({
      update_id: o.updateId ?? next(),
      message: {
        message_id: o.messageId ?? next(),
        from: o.from ?? { id: chat, is_bot: false, first_name: 'Ada', last_name: 'L', language_code: 'en' },
        chat: { id: chat, first_name: 'Ada', last_name: 'L', type: 'private' },
        date: nowSeconds(),
        text: o.text ?? 'Hello there',
      },
    });
  },
  headers: () => telegramHeaders(SECRETS.telegram),
};

export const whatsapp = {
  /** A Cloud API notification: `messages[]` (people writing) and/or `statuses[]` (receipts). */
  notification(value: Record<string, unknown>, field = 'messages') {
    return JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          changes: [
            {
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: WHATSAPP_NUMBER.display, phone_number_id: WHATSAPP_NUMBER.id },
                ...value,
              },
              field,
            },
          ],
        },
      ],
    });
  },
  text(from: string, body: string, id = `wamid.HBgL${next()}`, timestamp = nowSeconds()) {
    return whatsapp.notification({
      contacts: [{ profile: { name: 'Grace' }, wa_id: from }],
      messages: [{ from, id, timestamp: String(timestamp), text: { body }, type: 'text' }],
    });
  },
  /** A status callback as Meta sends it (`failed` carries `errors[]` with the platform's code). */
  status(
    id: string,
    recipient: string,
    status: 'sent' | 'delivered' | 'read' | 'failed',
    error?: { code: number; title: string; details?: string },
  ) {
    return whatsapp.notification({
      statuses: [
        {
          id,
          status,
          timestamp: String(nowSeconds()),
          recipient_id: recipient,
          ...(status === 'sent' || status === 'delivered'
            ? {
                conversation: { id: 'CONVERSATION_ID', origin: { type: 'utility' } },
                pricing: { billable: true, pricing_model: 'CBP', category: 'utility' },
              }
            : {}),
          ...(error
            ? {
                errors: [
                  {
                    code: error.code,
                    title: error.title,
                    message: error.title,
                    error_data: { details: error.details ?? error.title },
                    href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/',
                  },
                ],
              }
            : {}),
        },
      ],
    });
  },
  headers: (body: string) => whatsAppHeaders(SECRETS.whatsapp, body),
};

export const teams = {
  /** A Bot Framework message activity as Teams sends it to a bot or an outgoing webhook. */
  activity(o: {
    id?: string;
    conversation?: Record<string, unknown>;
    from?: Record<string, unknown>;
    recipient?: Record<string, unknown>;
    text?: string;
    serviceUrl?: string;
    type?: string;
  }) {
    return JSON.stringify({
      type: o.type ?? 'message',
      id: o.id ?? `1${next()}`,
      timestamp: new Date().toISOString(),
      localTimestamp: new Date().toISOString(),
      serviceUrl: o.serviceUrl ?? 'https://smba.trafficmanager.net/emea/',
      channelId: 'msteams',
      from: o.from ?? { id: '29:1user-alan', name: 'Alan', aadObjectId: '6e3b1c4f-0000-4000-8000-0000000000aa' },
      conversation: o.conversation ?? {
        conversationType: 'personal',
        tenantId: 'azure-tenant',
        id: 'a:1personal-alan',
      },
      recipient: o.recipient ?? { id: `28:${TEAMS_APP_ID}`, name: 'Support bot' },
      textFormat: 'plain',
      locale: 'en-US',
      text: o.text ?? 'How do I reset my password?',
      entities: [{ type: 'clientInfo', locale: 'en-US', country: 'US', platform: 'Web' }],
      channelData: { tenant: { id: 'azure-tenant' } },
    });
  },
  hmac: (body: string) => teamsHeaders(SECRETS.teams, body),
};

export const discordInteraction = {
  command(o: { id?: string; token?: string; text?: string; user?: Record<string, unknown> } = {}) {
    return JSON.stringify({
      app_permissions: '442368',
      application_id: DISCORD_APP_ID,
      channel_id: '1122334455667788',
      channel: { id: '1122334455667788', type: 0, name: 'help' },
      data: {
        id: '1234567890123456',
        name: 'ask',
        options: [{ name: 'question', type: 3, value: o.text ?? 'Where is the manual?' }],
        type: 1,
      },
      guild_id: '9988776655443322',
      id: o.id ?? `${1_200_000_000_000_000 + next()}`,
      member: { user: o.user ?? { id: '53908232506183680', username: 'mason', global_name: 'Mason', bot: false } },
      token: o.token ?? `aW50ZXJhY3Rpb246${next()}`,
      type: 2,
      version: 1,
    });
  },
  headers: (body: string) => discord.headers(body, String(nowSeconds())),
};
