import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CHANNEL_CREDENTIALS,
  ConnectionUnusableError,
  channelSecretName,
  channelSecretReference,
  resolveConnection,
  type ConnectionDescriptor,
} from '#areas/channels/credentials.ts';
import { CHANNEL_SEND, sendChannelMessage } from '#areas/channels/queue.ts';
import { ChannelSendError, sendToChannel, type ChannelConnection } from '#areas/channels/send-to-channel.ts';
import { ENDPOINT_SETTINGS } from '#areas/channels/senders/endpoints.ts';
import { forgetTeamsTokens } from '#areas/channels/senders/teams.ts';
import { parseTenantSecretReference, putTenantSecret } from '#areas/vault/tenant-secrets.ts';
import { clearChannelCalls, useLocalChannelEndpoints, type ChannelCall } from '#local/channels.ts';
import { localQueue } from '#local/local-queue.ts';
import { createApiListener } from '#local/server.ts';
import { routes } from '#local/routes.ts';
import { tempDir } from '#test/support/temp-dir.ts';

/**
 * The channel senders make each platform's real HTTP call; the local stand-in
 * (served by the local server, as `npm start` serves it) records each call exactly as sent and
 * answers like the platform, failures included; the channels queue and its worker send a queued
 * message once, resolving credentials from the tenant's own secret namespace, retry a refused send
 * and park it in the dead-letter queue.
 */
let server: Server;
let base: string;
const saved: Record<string, string | undefined> = {};

const tenantA = crypto.randomUUID();
const tenantB = crypto.randomUUID();

beforeAll(async () => {
  server = createServer(createApiListener({ routes }));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  for (const setting of Object.values(ENDPOINT_SETTINGS)) {
    saved[setting] = process.env[setting];
    delete process.env[setting];
  }
  useLocalChannelEndpoints(base);
});

afterAll(async () => {
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  await new Promise((done) => server.close(done));
});

beforeEach(async () => {
  forgetTeamsTokens();
  await fetch(`${base}/_local/channels`, { method: 'DELETE' });
});

/** What the stand-in recorded, read as a person would: GET /_local/channels. */
async function recorded(channel?: string): Promise<ChannelCall[]> {
  const res = await fetch(`${base}/_local/channels${channel ? `?channel=${channel}` : ''}`);
  expect(res.status).toBe(200);
  return (await res.json()) as ChannelCall[];
}

const conn = {
  slack: { id: 'c-slack', tenantId: tenantA, type: 'slack', credentials: { botToken: 'xoxb-1-local' } },
  telegram: { id: 'c-tg', tenantId: tenantA, type: 'telegram', credentials: { botToken: '123456:ABC-def_ghi' } },
  whatsapp: {
    id: 'c-wa',
    tenantId: tenantA,
    type: 'whatsapp',
    settings: { phoneNumberId: '106540352242922' },
    credentials: { accessToken: 'EAAG-local' },
  },
  discord: {
    id: 'c-dc',
    tenantId: tenantA,
    type: 'discord',
    settings: { applicationId: '775799577604522054' },
    credentials: { botToken: 'MTA-local' },
  },
  teams: {
    id: 'c-teams',
    tenantId: tenantA,
    type: 'teams',
    settings: { appId: '8f0e4b1c-0000-4000-8000-000000000001' },
    credentials: { appPassword: 'teams-app-password' },
  },
} satisfies Record<string, ChannelConnection>;

describe('senders against the local platform stand-in', () => {
  it('Slack: chat.postMessage with the bot token, in the thread; answers the ts', async () => {
    const out = await sendToChannel(conn.slack, {
      recipient: 'C123ABC456',
      text: 'Hello from the agent',
      threadId: '1515449522.000016',
    });
    expect(out.platformMessageId).toMatch(/^\d+\.\d{6}$/);
    const [call] = await recorded('slack');
    expect(call).toMatchObject({
      channel: 'slack',
      method: 'POST',
      url: `${base}/_local/channels/slack/chat.postMessage`,
      responseStatus: 200,
      response: { ok: true, ts: out.platformMessageId },
    });
    expect(call!.headers.authorization).toBe('Bearer xoxb-1-local');
    expect(call!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(call!.body)).toEqual({
      channel: 'C123ABC456',
      text: 'Hello from the agent',
      thread_ts: '1515449522.000016',
    });
  });

  it('Telegram: sendMessage under bot<token>; a long answer goes as several messages within 4096 characters', async () => {
    const long = `${'word '.repeat(1000)}end`;
    const out = await sendToChannel(conn.telegram, { recipient: '-1001234567890', text: long });
    const calls = await recorded('telegram');
    expect(calls.map((c) => c.url)).toEqual([
      `${base}/_local/channels/telegram/bot123456:ABC-def_ghi/sendMessage`,
      `${base}/_local/channels/telegram/bot123456:ABC-def_ghi/sendMessage`,
    ]);
    const texts = calls.map((c) => JSON.parse(c.body).text as string);
    expect(texts.every((t) => t.length <= 4096)).toBe(true);
    expect(texts.join(' ')).toBe(long);
    expect(JSON.parse(calls[0]!.body).chat_id).toBe('-1001234567890');
    expect(out.platformMessageId).toBe(
      String((calls[1]!.response as { result: { message_id: number } }).result.message_id),
    );
  });

  it('WhatsApp: Cloud API text message from the phone number id with the access token; answers the wamid', async () => {
    const out = await sendToChannel(conn.whatsapp, { recipient: '16505551234', text: 'Your order shipped' });
    expect(out.platformMessageId).toMatch(/^wamid\./);
    const [call] = await recorded('whatsapp');
    expect(call!.url).toBe(`${base}/_local/channels/whatsapp/106540352242922/messages`);
    expect(call!.headers.authorization).toBe('Bearer EAAG-local');
    expect(JSON.parse(call!.body)).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '16505551234',
      type: 'text',
      text: { preview_url: false, body: 'Your order shipped' },
    });
  });

  it('Discord: a bot message in the channel, or a follow-up on the interaction token without the bot token', async () => {
    await sendToChannel(conn.discord, { recipient: '645027906669510667', text: 'Hi there' });
    await sendToChannel(conn.discord, {
      recipient: '645027906669510667',
      text: 'Answer',
      interactionToken: 'A_UNIQUE_TOKEN',
    });
    const [message, followUp] = await recorded('discord');
    expect(message!.url).toBe(`${base}/_local/channels/discord/channels/645027906669510667/messages`);
    expect(message!.headers.authorization).toBe('Bot MTA-local');
    expect(JSON.parse(message!.body)).toEqual({ content: 'Hi there' });
    expect(followUp!.url).toBe(`${base}/_local/channels/discord/webhooks/775799577604522054/A_UNIQUE_TOKEN`);
    expect(followUp!.headers.authorization).toBeUndefined();
  });

  it('Teams: one Bot Framework token (client credentials) for several replies to the conversation', async () => {
    const conversation = '19:253b1f341670408fb6fe51050b6e5ceb@thread.skype;messageid=1485983194839';
    await sendToChannel(conn.teams, { recipient: conversation, text: 'First', threadId: '1485983408511' });
    await sendToChannel(conn.teams, { recipient: conversation, text: 'Second' });
    const [token, reply, send] = await recorded('teams');
    expect(token!.url).toBe(`${base}/_local/channels/teams/login/botframework.com/oauth2/v2.0/token`);
    expect(Object.fromEntries(new URLSearchParams(token!.body))).toEqual({
      grant_type: 'client_credentials',
      client_id: conn.teams.settings.appId,
      client_secret: 'teams-app-password',
      scope: 'https://api.botframework.com/.default',
    });
    const accessToken = (token!.response as { access_token: string }).access_token;
    const enc = encodeURIComponent(conversation);
    expect(reply!.url).toBe(`${base}/_local/channels/teams/v3/conversations/${enc}/activities/1485983408511`);
    expect(reply!.headers.authorization).toBe(`Bearer ${accessToken}`);
    expect(JSON.parse(reply!.body)).toEqual({
      type: 'message',
      text: 'First',
      textFormat: 'plain',
      replyToId: '1485983408511',
    });
    expect(send!.url).toBe(`${base}/_local/channels/teams/v3/conversations/${enc}/activities`);
    expect(send!.headers.authorization).toBe(`Bearer ${accessToken}`);
  });

  it("a refusal carries the platform's own error text; an outage is marked retryable", async () => {
    const refusal = async (c: ChannelConnection, recipient: string) => {
      const err = await sendToChannel(c, { recipient, text: 'x' }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ChannelSendError);
      const e = err as ChannelSendError;
      return { message: e.message, retryable: e.retryable };
    };
    expect(await refusal(conn.slack, 'fail')).toEqual({
      message: 'slack answered 200: channel_not_found',
      retryable: false,
    });
    expect(await refusal(conn.telegram, 'fail')).toEqual({
      message: 'telegram answered 400: Bad Request: chat not found',
      retryable: false,
    });
    expect(await refusal(conn.whatsapp, 'fail')).toEqual({
      message: 'whatsapp answered 400: (#131030) Recipient phone number not in allowed list (code 131030)',
      retryable: false,
    });
    expect(await refusal(conn.discord, 'fail')).toEqual({
      message: 'discord answered 404: Unknown Channel',
      retryable: false,
    });
    expect(await refusal(conn.teams, 'fail')).toEqual({
      message: 'teams answered 404: Conversation not found.',
      retryable: false,
    });
    for (const c of Object.values(conn)) expect((await refusal(c, 'unavailable')).retryable).toBe(true);
    // The Telegram bot token is in the URL path: no error text ever carries it.
    const tg = await refusal(conn.telegram, 'unavailable');
    expect(tg.message).not.toContain('ABC-def_ghi');
  });

  it('an unreachable platform is a retryable failure naming no URL', async () => {
    const was = process.env.CHANNEL_TELEGRAM_API_URL;
    // A port that was just free: nothing listens there.
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const { port } = closed.address() as { port: number };
    await new Promise((done) => closed.close(done));
    process.env.CHANNEL_TELEGRAM_API_URL = `http://127.0.0.1:${port}`;
    try {
      const err = (await sendToChannel(conn.telegram, { recipient: '1', text: 'x' }).catch(
        (e: unknown) => e,
      )) as ChannelSendError;
      expect(err).toBeInstanceOf(ChannelSendError);
      expect(err.retryable).toBe(true);
      expect(err.message).toBe('telegram unreachable: ECONNREFUSED');
    } finally {
      process.env.CHANNEL_TELEGRAM_API_URL = was;
    }
  });

  it('deployed, a Teams serviceUrl that is not a Bot Framework host is refused before any token leaves', async () => {
    const saved = { fn: process.env.AWS_LAMBDA_FUNCTION_NAME, svc: process.env.CHANNEL_TEAMS_SERVICE_URL };
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'channel-worker';
    delete process.env.CHANNEL_TEAMS_SERVICE_URL;
    try {
      for (const serviceUrl of [
        'http://169.254.169.254/latest/',
        'https://evil.example.com/',
        'https://smba.trafficmanager.net.evil.com/',
        'not a url',
      ]) {
        const err = (await sendToChannel(conn.teams, { recipient: 'x', text: 'x', serviceUrl }).catch(
          (e: unknown) => e,
        )) as ChannelSendError;
        expect(err, serviceUrl).toBeInstanceOf(ChannelSendError);
        expect(err.retryable).toBe(false);
      }
      expect(await recorded('teams')).toEqual([]);
    } finally {
      if (saved.fn === undefined) delete process.env.AWS_LAMBDA_FUNCTION_NAME;
      else process.env.AWS_LAMBDA_FUNCTION_NAME = saved.fn;
      process.env.CHANNEL_TEAMS_SERVICE_URL = saved.svc;
    }
  });
});

describe('the channels queue and the channel worker', () => {
  const channelId = crypto.randomUUID();
  let telegram: ConnectionDescriptor;

  beforeAll(async () => {
    const { reference } = await putTenantSecret(
      tenantA,
      channelSecretName(channelId, 'bot-token'),
      '987654:queued-bot',
    );
    telegram = { id: channelId, type: 'telegram', settings: {}, secretRefs: { 'bot-token': reference } };
  });

  it('enqueue -> worker -> the platform call, with the credential resolved from the tenant secret', async () => {
    await sendChannelMessage({
      tenantId: tenantA,
      connection: telegram,
      message: { recipient: '42', text: 'Queued hello' },
    });
    const calls = await recorded('telegram');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe(`${base}/_local/channels/telegram/bot987654:queued-bot/sendMessage`);
    expect(JSON.parse(calls[0]!.body)).toEqual({ chat_id: '42', text: 'Queued hello' });
  });

  it('the same message id queued twice (a provider retry) is sent once', async () => {
    const id = `${channelId}:update-10000`;
    const send = { tenantId: tenantA, connection: telegram, message: { recipient: '42', text: 'Once' } };
    await sendChannelMessage(send, { id });
    await sendChannelMessage(send, { id });
    expect(await recorded('telegram')).toHaveLength(1);
  });

  it("a reference into another tenant's namespace is refused: nothing is sent", async () => {
    const { reference } = await putTenantSecret(tenantB, channelSecretName(channelId, 'bot-token'), '555:tenant-b');
    const foreign = { ...telegram, secretRefs: { 'bot-token': reference } };
    await expect(
      sendChannelMessage({ tenantId: tenantA, connection: foreign, message: { recipient: '42', text: 'x' } }),
    ).rejects.toThrow(/failed message channel.send/);
    expect(await recorded()).toEqual([]);
  });

  it('a refused send is retried, then parked in the dead-letter queue after maxAttempts', async () => {
    const queue = localQueue({ dataDir: tempDir('channels-dlq-'), maxAttempts: 3, backoffMs: 1 });
    await queue.send(
      'channels',
      {
        id: crypto.randomUUID(),
        type: CHANNEL_SEND.type,
        payload: { tenantId: tenantA, connection: telegram, message: { recipient: 'fail', text: 'Never arrives' } },
      },
      { group: 'fail' },
    );
    await queue.drain();
    const letters = queue.deadLetters();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ queue: 'channels', attempts: 3 });
    expect(JSON.parse(letters[0]!.body).payload.message.recipient).toBe('fail');
    const calls = await recorded('telegram');
    expect(calls).toHaveLength(3);
    expect(calls.every((c) => c.responseStatus === 400)).toBe(true);
  });

  it('a payload that breaks the schema (a secret value instead of a reference) is parked without a call', async () => {
    const queue = localQueue({ dataDir: tempDir('channels-bad-'), maxAttempts: 2, backoffMs: 1 });
    await queue.send(
      'channels',
      {
        type: CHANNEL_SEND.type,
        payload: {
          tenantId: tenantA,
          connection: { ...telegram, secretRefs: { 'bot-token': '' } },
          message: { recipient: '42', text: 'x' },
        },
      },
      { group: '42' },
    );
    await queue.drain();
    expect(queue.deadLetters()).toHaveLength(1);
    expect(await recorded()).toEqual([]);
  });

  it("every credential's reference is a valid reference in the tenant's own namespace", () => {
    for (const spec of Object.values(CHANNEL_CREDENTIALS))
      for (const credential of [...spec.inbound, ...spec.sending]) {
        const ref = channelSecretReference(tenantA, channelId, credential);
        expect(ref).toBe(`vault://tenants/${tenantA}/channels/${channelId}/${credential}`);
        expect(parseTenantSecretReference(ref)).toEqual({
          tenantId: tenantA,
          name: `channels/${channelId}/${credential}`,
        });
      }
  });

  it('a connection missing a setting or a stored credential cannot send, and says which', async () => {
    const { reference } = await putTenantSecret(tenantA, channelSecretName(channelId, 'access-token'), 'EAAG-x');
    const whatsapp: ConnectionDescriptor = {
      id: channelId,
      type: 'whatsapp',
      settings: {},
      secretRefs: { 'access-token': reference },
    };
    await expect(resolveConnection(tenantA, whatsapp)).rejects.toThrow(/phoneNumberId is not set/);
    const noSecret = {
      ...whatsapp,
      settings: { phoneNumberId: '1' },
      secretRefs: { 'access-token': channelSecretReference(tenantA, channelId, 'missing') },
    };
    await expect(resolveConnection(tenantA, noSecret)).rejects.toBeInstanceOf(ConnectionUnusableError);
    expect(await resolveConnection(tenantA, { ...whatsapp, settings: { phoneNumberId: '1' } })).toEqual({
      id: channelId,
      tenantId: tenantA,
      type: 'whatsapp',
      settings: { phoneNumberId: '1' },
      credentials: { accessToken: 'EAAG-x' },
    });
  });

  it('DELETE /_local/channels forgets the record', async () => {
    await sendToChannel(conn.slack, { recipient: 'C1', text: 'x' });
    expect(await recorded()).toHaveLength(1);
    expect((await fetch(`${base}/_local/channels`, { method: 'DELETE' })).status).toBe(204);
    expect(await recorded()).toEqual([]);
    await clearChannelCalls();
  });
});
