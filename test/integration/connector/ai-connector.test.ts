import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { queueDueProactiveMessages } from '#areas/connector/proactive.ts';
import { forgetTeamsTokens } from '#areas/channels/senders/teams.ts';
import { localQueue } from '#local/local-queue.ts';
import { queueSender } from '#shared/platform/ports.ts';
import { logger } from '#shared/runtime/logger.ts';
import { AGENTS } from '#test/support/agents.ts';
import {
  discordKeys,
  slackHeaders,
  teamsHeaders,
  telegramHeaders,
  whatsAppHeaders,
} from '#test/support/channel-signing.ts';
import { useChannelStandIn } from '#test/support/channel-stand-in.ts';
import { publishedWidget } from '#test/support/conversations.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tempDir } from '#test/support/temp-dir.ts';
import { sentMessages } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * The five platforms' webhooks (signed inbound message -> the agent's answer sent
 * through the platform's API, as the local stand-in records it -> the conversation in the inbox),
 * their refusals (tampered, wrong secret, stale, replayed), and proactive messages (now, scheduled,
 * cancelled, failed after retries, WhatsApp's 24 hours). Secrets appear in no answer and no log line.
 */
const standIn = useChannelStandIn();
const recorded = standIn.recorded;
const logged: unknown[][] = [];

let t: string;
let owner: string;
let tB: string;
let ownerB: string;
let agentId: string;
let agentB: string;

const SECRETS = {
  slack: 'slack-signing-secret-0123456789',
  teams: Buffer.from('teams-security-token-bytes-0123456789').toString('base64'),
  whatsapp: 'meta-app-secret-0123456789',
  verify: 'meta-verify-token-0123456789',
  telegram: 'telegram_secret_token_0123456789',
  bot: '123456:telegram-bot-token-secret',
};
const discord = discordKeys();

beforeAll(async () => {
  for (const level of ['debug', 'info', 'warn', 'error'] as const)
    vi.spyOn(logger, level).mockImplementation((...args: unknown[]) => void logged.push(args));
  t = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
  owner = await tokenFor({ tenantId: t });
  agentId = (await publishedWidget(owner)).agentId;
  tB = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
  ownerB = await tokenFor({ tenantId: tB });
  agentB = (await publishedWidget(ownerB)).agentId;
});

afterAll(async () => {
  vi.restoreAllMocks();
});

beforeEach(async () => {
  forgetTeamsTokens();
});

const CONNECTIONS = {
  slack: { secrets: { 'signing-secret': SECRETS.slack, 'bot-token': 'xoxb-bot-token-secret' } },
  teams: {
    settings: { appId: '8f0e4b1c-0000-4000-8000-000000000001' },
    secrets: { 'security-token': SECRETS.teams, 'app-password': 'teams-app-password-secret' },
  },
  whatsapp: {
    settings: { phoneNumberId: '106540352242922' },
    secrets: { 'app-secret': SECRETS.whatsapp, 'verify-token': SECRETS.verify, 'access-token': 'EAAG-access-secret' },
  },
  telegram: { secrets: { 'secret-token': SECRETS.telegram, 'bot-token': SECRETS.bot } },
  discord: {
    settings: { applicationId: '775799577604522054', publicKey: discord.publicKeyHex },
    secrets: { 'bot-token': 'MTA-discord-bot-secret' },
  },
} as const;
type Type = keyof typeof CONNECTIONS;

async function connect(type: Type, opts: { token?: string; agent?: string } = {}) {
  const res = await invoke('POST', '/api/ai/channels', {
    token: opts.token ?? owner,
    body: { type, name: `${type} line`, agentId: opts.agent ?? agentId, ...CONNECTIONS[type] },
  });
  expect(res).toAnswer(201);
  return res.json.result.id as string;
}

const hook = (type: Type, channelId: string, body: string, headers: Record<string, string>) =>
  invoke('POST', `/api/webhooks/${type}/${channelId}`, { rawBody: body, headers, contentType: 'application/json' });

let seq = 1000;
const telegramUpdate = (text: string, user = 4242, updateId = ++seq) =>
  JSON.stringify({
    update_id: updateId,
    message: {
      message_id: updateId,
      from: { id: user, is_bot: false, first_name: 'Ada', last_name: 'L' },
      chat: { id: user, type: 'private' },
      date: Math.floor(Date.now() / 1000),
      text,
    },
  });
const sendTelegram = (channelId: string, body: string, secret = SECRETS.telegram) =>
  hook('telegram', channelId, body, telegramHeaders(secret));

const now = () => Math.floor(Date.now() / 1000);
const slackEvent = (text: string, eventId = `Ev${++seq}`) =>
  JSON.stringify({
    type: 'event_callback',
    event_id: eventId,
    event: { type: 'message', user: 'U0LAURA', channel: 'D0DM01', text, ts: `${now()}.000100` },
  });

const inbox = (query: string, token = owner) => invoke('GET', `/api/conversations?${query}`, { token });
const detail = (id: string, token = owner) => invoke('GET', `/api/conversations/${id}`, { token });

/** The conversation of a channel user on a connection, read as the inbox shows it. */
async function conversationsOf(channel: Type, token = owner) {
  const res = await inbox(`channel=${channel}&pageSize=100`, token);
  expect(res).toAnswer(200);
  return res.json.result.items as { id: string; channel: string; messageCount: number; status: string }[];
}

describe('a full turn per channel: signed inbound -> the agent answer sent -> the conversation in the inbox', () => {
  it('Telegram: the update is answered with sendMessage to the chat; the inbox lists it under channel=telegram', async () => {
    const channelId = await connect('telegram');
    const res = await sendTelegram(channelId, telegramUpdate('What are your opening hours?', 5151));
    expect(res).toAnswer(200);
    const calls = await recorded('telegram');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe(`${standIn.base}/_local/channels/telegram/bot${SECRETS.bot}/sendMessage`);
    const sent = JSON.parse(calls[0]!.body);
    expect(sent.chat_id).toBe('5151');
    const list = (await conversationsOf('telegram')).filter((c) => c.messageCount === 2);
    const conv = await detail(list[0]!.id);
    expect(conv.json.result).toMatchObject({ channel: 'telegram', channelId, status: 'Open' });
    const [visitor, answer] = conv.json.result.messages;
    expect(visitor).toMatchObject({ role: 'visitor', text: 'What are your opening hours?' });
    expect(answer.role).toBe('agent');
    expect(sent.text).toBe(answer.text);
  });

  it('Slack: url_verification answers the challenge; a DM event is answered with chat.postMessage', async () => {
    const channelId = await connect('slack');
    const challenge = JSON.stringify({ type: 'url_verification', token: 'x', challenge: 'c-3pu-challenge' });
    const hs = await hook('slack', channelId, challenge, slackHeaders(SECRETS.slack, challenge, now()));
    expect(hs).toAnswer(200);
    expect(hs.json).toEqual({ challenge: 'c-3pu-challenge' });
    const body = slackEvent('Hello from Slack');
    const res = await hook('slack', channelId, body, slackHeaders(SECRETS.slack, body, now()));
    expect(res).toAnswer(200);
    const [call] = await recorded('slack');
    expect(call!.url).toBe(`${standIn.base}/_local/channels/slack/chat.postMessage`);
    expect(call!.headers.authorization).toBe('Bearer xoxb-bot-token-secret');
    expect(JSON.parse(call!.body).channel).toBe('D0DM01');
    const [conv] = await conversationsOf('slack');
    const messages = (await detail(conv!.id)).json.result.messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(['visitor', 'agent']);
    expect(JSON.parse(call!.body).text).toBe(messages[1].text);
  });

  it('WhatsApp: the GET handshake echoes the challenge for the verify token only; a message is answered through the Graph API', async () => {
    const channelId = await connect('whatsapp');
    const q = (token: string) =>
      invoke('GET', `/api/webhooks/whatsapp/${channelId}`, {
        query: { 'hub.mode': 'subscribe', 'hub.verify_token': token, 'hub.challenge': '1158201444' },
      });
    const ok = await q(SECRETS.verify);
    expect(ok).toAnswer(200);
    expect(ok.text).toBe('1158201444');
    // Meta expects 403 for a token that does not match.
    for (const token of ['wrong-token', '']) {
      const bad = await q(token);
      expect(bad).toAnswer(403, 'INVALID_VERIFY_TOKEN');
    }
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'WABA',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                contacts: [{ wa_id: '16505551234', profile: { name: 'Grace' } }],
                messages: [
                  { from: '16505551234', id: `wamid.IN${++seq}`, type: 'text', text: { body: 'Is my order late?' } },
                ],
              },
            },
          ],
        },
      ],
    });
    const res = await hook('whatsapp', channelId, body, whatsAppHeaders(SECRETS.whatsapp, body));
    expect(res).toAnswer(200);
    const [call] = await recorded('whatsapp');
    expect(call!.url).toBe(`${standIn.base}/_local/channels/whatsapp/106540352242922/messages`);
    expect(JSON.parse(call!.body)).toMatchObject({ messaging_product: 'whatsapp', to: '16505551234' });
    const [conv] = await conversationsOf('whatsapp');
    expect((await detail(conv!.id)).json.result.visitor).toEqual({ name: 'Grace', email: null });
  });

  it('Teams: an outgoing-webhook activity is answered through the Bot Connector of its serviceUrl', async () => {
    const channelId = await connect('teams');
    const body = JSON.stringify({
      type: 'message',
      id: `1:act${++seq}`,
      serviceUrl: 'https://smba.trafficmanager.net/emea/',
      from: { id: '29:user', name: 'Alan', aadObjectId: 'aad-alan' },
      conversation: { id: '19:meeting_abc@thread.v2' },
      text: '<at>Support</at> How do I reset my password?',
    });
    const res = await hook('teams', channelId, body, teamsHeaders(SECRETS.teams, body));
    expect(res).toAnswer(200);
    const calls = await recorded('teams');
    const send = calls.find((c) => c.url.includes('/v3/conversations/'));
    expect(send, JSON.stringify(calls)).toBeDefined();
    expect(send!.url).toContain(encodeURIComponent('19:meeting_abc@thread.v2'));
    const [conv] = await conversationsOf('teams');
    expect((await detail(conv!.id)).json.result.messages[0].text).toBe('How do I reset my password?');
  });

  it('Discord: PING answers PONG; a command answers DEFERRED and the answer goes as a follow-up', async () => {
    const channelId = await connect('discord');
    const ping = JSON.stringify({ id: `${++seq}`, type: 1, application_id: '775799577604522054' });
    const pong = await hook('discord', channelId, ping, discord.headers(ping, String(now())));
    expect(pong).toAnswer(200);
    expect(pong.json).toEqual({ type: 1 });
    const body = JSON.stringify({
      id: `${++seq}`,
      type: 2,
      token: 'interaction-token-abc',
      channel_id: '1122334455',
      member: { user: { id: '998877', username: 'linus' } },
      data: { name: 'ask', options: [{ name: 'question', type: 3, value: 'Where is the manual?' }] },
    });
    const res = await hook('discord', channelId, body, discord.headers(body, String(now())));
    expect(res).toAnswer(200);
    expect(res.json).toEqual({ type: 5 });
    const [call] = await recorded('discord');
    expect(call!.url).toBe(`${standIn.base}/_local/channels/discord/webhooks/775799577604522054/interaction-token-abc`);
    expect((await conversationsOf('discord')).length).toBe(1);
  });
});

describe('refusals: nothing stored, nothing sent', () => {
  let channelId: string;
  beforeAll(async () => {
    channelId = await connect('slack');
  });
  const expectRefused = async (res: Awaited<ReturnType<typeof invoke>>) => {
    expect(res).toAnswer(400, 'INVALID_SIGNATURE');
    expect(await recorded()).toEqual([]);
  };

  it('a tampered body, a wrong secret, a stale Slack timestamp and a missing signature are 400 INVALID_SIGNATURE', async () => {
    const before = (await conversationsOf('slack')).length;
    const body = slackEvent('tampered?');
    const headers = slackHeaders(SECRETS.slack, body, now());
    await expectRefused(await hook('slack', channelId, body.replace('tampered?', 'tampered!'), headers));
    await expectRefused(await hook('slack', channelId, body, slackHeaders('not-the-secret', body, now())));
    await expectRefused(await hook('slack', channelId, body, slackHeaders(SECRETS.slack, body, now() - 6 * 60)));
    await expectRefused(await hook('slack', channelId, body, {}));
    const tg = await connect('telegram');
    await expectRefused(await sendTelegram(tg, telegramUpdate('hi'), 'wrong_token'));
    const wa = await connect('whatsapp');
    const waBody = JSON.stringify({ object: 'whatsapp_business_account', entry: [] });
    await expectRefused(await hook('whatsapp', wa, waBody, whatsAppHeaders('other-secret', waBody)));
    const dc = await connect('discord');
    const dcBody = JSON.stringify({ id: '1', type: 1 });
    await expectRefused(await hook('discord', dc, `${dcBody} `, discord.headers(dcBody, String(now()))));
    expect((await conversationsOf('slack')).length).toBe(before);
  });

  it("another platform's route for the connection, or an unknown connection, is 404", async () => {
    const body = telegramUpdate('hi');
    expect(await sendTelegram(channelId, body)).toAnswer(404);
    expect(await sendTelegram(crypto.randomUUID(), body)).toAnswer(404);
  });
});

describe('delivery semantics', () => {
  it('a replayed event (the provider retrying) is answered 200 and processed once', async () => {
    const channelId = await connect('telegram');
    const body = telegramUpdate('Only once please', 6161);
    for (let i = 0; i < 3; i++) expect((await sendTelegram(channelId, body)).status).toBe(200);
    // One turn on the queue: the turn worker's own claim would hide a second one from the send count.
    const turns = sentMessages.filter((m) => m.queue === 'turns' && m.message.payload.channelId === channelId);
    expect(turns).toHaveLength(1);
    expect(await recorded('telegram')).toHaveLength(1);
    const mine = [];
    for (const c of await conversationsOf('telegram')) {
      const d = (await detail(c.id)).json.result;
      if (d.channelId === channelId) mine.push(d);
    }
    expect(mine).toHaveLength(1);
    expect(mine[0].messages).toHaveLength(2);
  });

  it("answers within Slack's 3 s before the turn runs; the queued turn then answers the person", async () => {
    const channelId = await connect('slack');
    const original = await queueSender();
    const queue = localQueue({ dataDir: tempDir('connector-turns-'), maxAttempts: 3, backoffMs: 1 });
    queueSender.install(queue);
    try {
      const body = slackEvent('Are you fast?');
      const started = performance.now();
      const res = await hook('slack', channelId, body, slackHeaders(SECRETS.slack, body, now()));
      const ms = performance.now() - started;
      expect(res).toAnswer(200);
      expect(ms).toBeLessThan(3000);
      expect(await recorded('slack')).toEqual([]);
      await queue.drain();
      expect(await recorded('slack')).toHaveLength(1);
      expect(queue.deadLetters()).toEqual([]);
      console.info(`[connector] Slack webhook answered in ${ms.toFixed(0)} ms with the turn queued`);
    } finally {
      queueSender.install(original);
    }
  });

  it('one conversation per channel user while it is not Closed; a Closed one starts a new conversation', async () => {
    const channelId = await connect('telegram');
    await sendTelegram(channelId, telegramUpdate('first', 7171));
    await sendTelegram(channelId, telegramUpdate('second', 7171));
    const mine = async () => {
      const out = [];
      for (const c of await conversationsOf('telegram')) {
        const d = (await detail(c.id)).json.result;
        if (d.channelId === channelId) out.push(d);
      }
      return out;
    };
    const [one] = await mine();
    expect(one.messages.map((m: { text: string; role: string }) => m.role)).toEqual([
      'visitor',
      'agent',
      'visitor',
      'agent',
    ]);
    const closed = await invoke('PUT', `/api/conversations/${one.id}/status`, {
      token: owner,
      body: { status: 'Closed', reason: null },
    });
    expect(closed).toAnswer(200);
    await sendTelegram(channelId, telegramUpdate('third', 7171));
    const after = await mine();
    expect(after).toHaveLength(2);
    const fresh = after.find((c) => c.id !== one.id)!;
    expect(fresh.status).toBe('Open');
    expect(fresh.messages[0].text).toBe('third');
  });

  it('an inactive connection or an unpublished agent answers 200 to the platform and runs no turn', async () => {
    const channelId = await connect('telegram');
    const off = await invoke('PUT', `/api/ai/channels/${channelId}`, { token: owner, body: { isActive: false } });
    expect(off).toAnswer(200);
    expect(await sendTelegram(channelId, telegramUpdate('anyone?', 8181))).toAnswer(200);
    expect(await recorded()).toEqual([]);
    // Discord must get an interaction answer: a note only the person sees, instead of "thinking…" forever.
    const dc = await connect('discord');
    expect(await invoke('PUT', `/api/ai/channels/${dc}`, { token: owner, body: { isActive: false } })).toAnswer(200);
    const command = JSON.stringify({
      id: `${++seq}`,
      type: 2,
      token: 'interaction-token-off',
      channel_id: '1122334455',
      user: { id: '998877', username: 'linus' },
      data: { name: 'ask', options: [{ name: 'question', type: 3, value: 'Hello?' }] },
    });
    const answered = await hook('discord', dc, command, discord.headers(command, String(now())));
    expect(answered.json).toEqual({
      type: 4,
      data: { content: 'The assistant is not available right now.', flags: 64 },
    });
    expect(await recorded()).toEqual([]);

    const draft = await invoke('POST', AGENTS, {
      token: owner,
      body: {
        name: 'Draft',
        promptId: (await invoke('GET', `${AGENTS}/${agentId}`, { token: owner })).json.result.promptId,
      },
    });
    expect(draft).toAnswer(201);
    const unpublished = await connect('telegram', { agent: draft.json.result.id });
    expect(await sendTelegram(unpublished, telegramUpdate('hello?', 8282))).toAnswer(200);
    expect(await recorded()).toEqual([]);
    for (const c of await conversationsOf('telegram')) {
      const d = (await detail(c.id)).json.result;
      expect([channelId, unpublished]).not.toContain(d.channelId);
    }
  });

  it("a webhook for tenant A's connection never writes into tenant B's conversations", async () => {
    const a = await connect('telegram');
    await connect('telegram', { token: ownerB, agent: agentB });
    const beforeB = await conversationsOf('telegram', ownerB);
    expect(await sendTelegram(a, telegramUpdate('for tenant A', 9191))).toAnswer(200);
    expect(await conversationsOf('telegram', ownerB)).toEqual(beforeB);
    const all = await invoke('GET', '/api/conversations?pageSize=100', { token: ownerB });
    expect(all.text).not.toContain('for tenant A');
    expect(all.text).not.toContain(a);
  });
});

describe('proactive messages', () => {
  const P = '/api/proactive-messages';
  const create = (body: Record<string, unknown>, token = owner) => invoke('POST', P, { token, body });
  const read = (id: string, token = owner) => invoke('GET', `${P}/${id}`, { token });

  it('send now: 202 Queued, then Sent with sentAt; the platform got exactly the text', async () => {
    const channelId = await connect('telegram');
    const res = await create({ channelId, recipient: '5151', text: 'Your order has shipped' });
    expect(res).toAnswer(202);
    expect(res.json.result).toMatchObject({
      status: 'Queued',
      channelType: 'telegram',
      scheduledAt: null,
      error: null,
    });
    const got = (await read(res.json.result.id)).json.result;
    expect(got.status).toBe('Sent');
    expect(Date.parse(got.sentAt)).toBeGreaterThan(0);
    const [call] = await recorded('telegram');
    expect(JSON.parse(call!.body)).toMatchObject({ chat_id: '5151', text: 'Your order has shipped' });
    const list = await invoke('GET', `${P}?status=Sent&channelId=${channelId}`, { token: owner });
    expect(list.json.result.items.map((m: { id: string }) => m.id)).toEqual([got.id]);
  });

  it('scheduled: nothing goes before its time; the minute sweep sends it at its time, once', async () => {
    const channelId = await connect('telegram');
    const at = new Date(Date.now() + 10 * 60_000).toISOString();
    const res = await create({ channelId, recipient: '777', text: 'Reminder: appointment', scheduledAt: at });
    expect(res).toAnswer(202);
    expect(res.json.result).toMatchObject({ status: 'Scheduled', scheduledAt: at });
    await queueDueProactiveMessages(Date.now());
    expect((await read(res.json.result.id)).json.result.status).toBe('Scheduled');
    expect(await recorded()).toEqual([]);
    await queueDueProactiveMessages(Date.parse(at) + 1000);
    await queueDueProactiveMessages(Date.parse(at) + 61_000);
    const got = (await read(res.json.result.id)).json.result;
    expect(got.status).toBe('Sent');
    expect(await recorded('telegram')).toHaveLength(1);
  });

  it('cancel: 204 while Scheduled, it is never sent; cancelling again or a Sent one is 409', async () => {
    const channelId = await connect('telegram');
    const at = new Date(Date.now() + 5 * 60_000).toISOString();
    const res = await create({ channelId, recipient: '888', text: 'Never mind', scheduledAt: at });
    const id = res.json.result.id as string;
    expect(await invoke('DELETE', `${P}/${id}`, { token: owner })).toAnswer(204);
    expect((await read(id)).json.result.status).toBe('Cancelled');
    await queueDueProactiveMessages(Date.parse(at) + 1000);
    expect(await recorded()).toEqual([]);
    const again = await invoke('DELETE', `${P}/${id}`, { token: owner });
    expect(again).toAnswer(409, 'MESSAGE_NOT_CANCELLABLE');
    const sent = await create({ channelId, recipient: '889', text: 'Sent already' });
    const late = await invoke('DELETE', `${P}/${sent.json.result.id}`, { token: owner });
    expect(late).toAnswer(409);
  });

  it("a platform refusal is recorded Failed with the platform's error", async () => {
    const channelId = await connect('telegram');
    const res = await create({ channelId, recipient: 'fail', text: 'To nobody' });
    expect(res).toAnswer(202);
    const got = (await read(res.json.result.id)).json.result;
    expect(got.status).toBe('Failed');
    expect(got.error).toContain('Bad Request: chat not found');
    expect(got.sentAt).toBeNull();
  });

  it('a passing failure is retried, and recorded Failed with the error after the last attempt', async () => {
    const channelId = await connect('telegram');
    const original = await queueSender();
    const queue = localQueue({ dataDir: tempDir('proactive-retry-'), maxAttempts: 5, backoffMs: 1 });
    queueSender.install(queue);
    try {
      const res = await create({ channelId, recipient: 'unavailable', text: 'Platform down' });
      expect(res).toAnswer(202);
      await queue.drain();
      const got = (await read(res.json.result.id)).json.result;
      expect(got.status).toBe('Failed');
      expect(got.error).toContain('Bad Gateway');
      expect(await recorded('telegram')).toHaveLength(5);
      // Recorded on the last attempt, which completes: no dead letter repeats it.
      expect(queue.deadLetters()).toEqual([]);
    } finally {
      queueSender.install(original);
    }
  });

  it("WhatsApp: refused outside 24 hours of the recipient's last message (409 WINDOW_CLOSED); inside it, sent", async () => {
    const channelId = await connect('whatsapp');
    const never = await create({ channelId, recipient: '4915112345678', text: 'Hi there' });
    expect(never).toAnswer(409, 'WINDOW_CLOSED');
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          changes: [
            {
              value: {
                messages: [{ from: '4915112345678', id: `wamid.W${++seq}`, type: 'text', text: { body: 'hello' } }],
              },
            },
          ],
        },
      ],
    });
    expect(await hook('whatsapp', channelId, body, whatsAppHeaders(SECRETS.whatsapp, body))).toAnswer(200);
    await fetch(`${standIn.base}/_local/channels`, { method: 'DELETE' });
    const inside = await create({ channelId, recipient: '4915112345678', text: 'Following up' });
    expect(inside).toAnswer(202);
    expect((await read(inside.json.result.id)).json.result.status).toBe('Sent');
    const tooLate = new Date(Date.now() + 25 * 3600_000).toISOString();
    const later = await create({ channelId, recipient: '4915112345678', text: 'Tomorrow', scheduledAt: tooLate });
    expect(later).toAnswer(409, 'WINDOW_CLOSED');
  });

  it("another tenant's channel is 404; another tenant's message is 404", async () => {
    const channelId = await connect('telegram');
    const foreign = await create({ channelId, recipient: '1', text: 'x' }, ownerB);
    expect(foreign).toAnswer(404);
    const mine = await create({ channelId, recipient: '1', text: 'mine' });
    expect(await read(mine.json.result.id, ownerB)).toAnswer(404);
    expect(await invoke('DELETE', `${P}/${mine.json.result.id}`, { token: ownerB })).toAnswer(404);
  });
});

describe('secrets', () => {
  it('appear in no log line and no API answer', async () => {
    const values = [
      ...Object.values(SECRETS),
      'xoxb-bot-token-secret',
      'teams-app-password-secret',
      'EAAG-access-secret',
      'MTA-discord-bot-secret',
    ];
    const answers = [
      (await invoke('GET', '/api/ai/channels?pageSize=100', { token: owner })).text,
      (await invoke('GET', '/api/proactive-messages?pageSize=100', { token: owner })).text,
      (await invoke('GET', '/api/conversations?pageSize=100', { token: owner })).text,
    ];
    // The stand-in's own request lines are the platform's side (Telegram's URL carries the bot token
    // by design); locally the same server writes them. Every line of our functions is checked.
    const ours = logged.filter(
      (l) => !String((l[1] as { route?: string } | undefined)?.route ?? '').startsWith('local.'),
    );
    const logs = JSON.stringify(ours, (_k, v) => (v instanceof Error ? { message: v.message, stack: v.stack } : v));
    expect(ours.length).toBeGreaterThan(50);
    expect(logs).toContain('connector.webhooks.telegram');
    for (const value of values) {
      expect(logs).not.toContain(value);
      for (const a of answers) expect(a).not.toContain(value);
    }
  });
});
