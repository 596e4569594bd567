import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { inboundClaimKey } from '#areas/connector/records.ts';
import { commitChange, deleteItem } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
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
import { sentMessages } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * Hostile inbound on the chat platforms' webhooks. What an attacker holding a captured request can
 * do with it later: replay a genuinely signed request (refused once its signed timestamp is stale),
 * replay a platform event after its dedupe claim expired (refused by the event's own time), replay
 * it at once and in parallel (one turn on the queue). And signed events whose platform ids are
 * longer than a DynamoDB key may be: answered 200 or 4xx, never 500.
 */
const standIn = useChannelStandIn();

let tenantId: string;
let owner: string;
let agentId: string;

const SECRETS = {
  slack: 'slack-signing-secret-replays',
  teams: Buffer.from('teams-security-token-replays').toString('base64'),
  whatsapp: 'meta-app-secret-replays',
  telegram: 'telegram_secret_token_replays',
};
const discord = discordKeys();
const DAY = 86_400;
const now = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  tenantId = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
  owner = await tokenFor({ tenantId });
  agentId = (await publishedWidget(owner)).agentId;
});

const CONNECTIONS = {
  slack: { secrets: { 'signing-secret': SECRETS.slack, 'bot-token': 'xoxb-replays' } },
  discord: {
    settings: { applicationId: '775799577604522054', publicKey: discord.publicKeyHex },
    secrets: { 'bot-token': 'MTA-discord-replays' },
  },
  teams: {
    settings: { appId: '8f0e4b1c-0000-4000-8000-000000000002' },
    secrets: { 'security-token': SECRETS.teams, 'app-password': 'teams-app-password-replays' },
  },
  whatsapp: {
    settings: { phoneNumberId: '106540352242922' },
    secrets: { 'app-secret': SECRETS.whatsapp, 'verify-token': 'meta-verify-replays', 'access-token': 'EAAG-replays' },
  },
  telegram: { secrets: { 'secret-token': SECRETS.telegram, 'bot-token': '123456:telegram-replays' } },
} as const;
type Type = keyof typeof CONNECTIONS;

async function connect(type: Type) {
  const res = await invoke('POST', '/api/ai/channels', {
    token: owner,
    body: { type, name: `${type} line`, agentId, ...CONNECTIONS[type] },
  });
  expect(res).toAnswer(201);
  return res.json.result.id as string;
}

const hook = (type: string, channelId: string, body: string, headers: Record<string, string>) =>
  invoke('POST', `/api/webhooks/${type}/${channelId}`, { rawBody: body, headers, contentType: 'application/json' });

/** The turns put on the queue for one connection's event. */
const turnsFor = (channelId: string) =>
  sentMessages.filter((m) => m.queue === 'turns' && m.message.payload.channelId === channelId);

let seq = 5000;
const discordCommand = (text: string) =>
  JSON.stringify({
    id: `${++seq}`,
    type: 2,
    token: `interaction-token-${seq}`,
    channel_id: '1122334455',
    member: { user: { id: '998877', username: 'linus' } },
    data: { name: 'ask', options: [{ name: 'question', type: 3, value: text }] },
  });

const expectInvalidSignature = (res: Awaited<ReturnType<typeof invoke>>) => {
  expect(res).toAnswer(400, 'INVALID_SIGNATURE');
};

describe('replayed old signatures', () => {
  it('Discord: a genuine signature 30 days old (or 6 minutes, or from the future) is 400; nothing queued or sent', async () => {
    const channelId = await connect('discord');
    for (const at of [now() - 30 * DAY, now() - 6 * 60, now() + 6 * 60]) {
      const body = discordCommand('Replay me');
      expectInvalidSignature(await hook('discord', channelId, body, discord.headers(body, String(at))));
    }
    const ping = JSON.stringify({ id: `${++seq}`, type: 1 });
    expectInvalidSignature(await hook('discord', channelId, ping, discord.headers(ping, String(now() - 30 * DAY))));
    expect(turnsFor(channelId)).toEqual([]);
    expect(await standIn.recorded()).toEqual([]);
    const body = discordCommand('Fresh one');
    const fresh = await hook('discord', channelId, body, discord.headers(body, String(now() - 60)));
    expect(fresh).toAnswer(200);
    expect(fresh.json).toEqual({ type: 5 });
    expect(turnsFor(channelId)).toHaveLength(1);
  });

  it('Slack: a genuine signature 30 days old is 400; nothing queued', async () => {
    const channelId = await connect('slack');
    const body = JSON.stringify({
      type: 'event_callback',
      event_id: `Ev${++seq}`,
      event: { type: 'message', user: 'U0LAURA', channel: 'D0DM01', text: 'old news', ts: '1.000100' },
    });
    expectInvalidSignature(await hook('slack', channelId, body, slackHeaders(SECRETS.slack, body, now() - 30 * DAY)));
    expect(turnsFor(channelId)).toEqual([]);
  });
});

/** The platforms that sign no timestamp: an event as each sends it, dated `at` (unix seconds), and its signed headers. */
const UNSIGNED_TIME = {
  teams: (id: string, at: number) => {
    const body = JSON.stringify({
      type: 'message',
      id,
      timestamp: new Date(at * 1000).toISOString(),
      serviceUrl: 'https://smba.trafficmanager.net/emea/',
      from: { id: '29:user', name: 'Alan', aadObjectId: 'aad-alan' },
      conversation: { id: '19:meeting_abc@thread.v2' },
      text: '<at>Support</at> Refund me again',
    });
    return { body, headers: teamsHeaders(SECRETS.teams, body) };
  },
  whatsapp: (id: string, at: number) => {
    const message = { from: '16505551234', id, timestamp: String(at), type: 'text', text: { body: 'Refund me again' } };
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: 'WABA', changes: [{ field: 'messages', value: { messages: [message] } }] }],
    });
    return { body, headers: whatsAppHeaders(SECRETS.whatsapp, body) };
  },
  telegram: (id: string, at: number) => {
    const from = { id: 4242, is_bot: false, first_name: 'Ada' };
    const message = { message_id: 7, from, chat: { id: 4242, type: 'private' }, date: at, text: 'Refund me again' };
    return { body: JSON.stringify({ update_id: Number(id), message }), headers: telegramHeaders(SECRETS.telegram) };
  },
} as const;

/** The claim's TTL running out, as DynamoDB's expiry would delete it (DynamoDB Local never expires items). */
const expireClaim = (channelId: string, eventId: string) =>
  commitChange([deleteItem(inboundClaimKey(tenantId, channelId, eventId))], null);

describe('events replayed after their dedupe claim expired (platforms that sign no timestamp)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  for (const type of ['teams', 'whatsapp', 'telegram'] as const) {
    it(`${type}: a captured event replayed 9 days later, its claim gone, is 400 STALE_EVENT and queues no second turn`, async () => {
      const channelId = await connect(type);
      const eventId = type === 'whatsapp' ? `wamid.R${++seq}` : type === 'teams' ? `1:act${++seq}` : `${++seq}`;
      const captured = UNSIGNED_TIME[type](eventId, now());
      const first = await hook(type, channelId, captured.body, captured.headers);
      expect(first).toAnswer(200);
      expect(turnsFor(channelId)).toHaveLength(1);
      // Until the claim expires, the event is still within its 8 days: no gap between the two guards.
      const claim = await get<{ ttl: number }>(inboundClaimKey(tenantId, channelId, eventId), { consistent: true });
      expect(claim!.ttl).toBeGreaterThan(now() + 8 * DAY);

      await expireClaim(channelId, eventId);
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 9 * DAY * 1000 });
      const replay = await hook(type, channelId, captured.body, captured.headers);
      expect(replay).toAnswer(400, 'STALE_EVENT');
      expect(turnsFor(channelId)).toHaveLength(1);
    });
  }

  it('an event first seen 9 days after its date is refused; a late retry within 8 days (Meta retries 7) is taken', async () => {
    for (const type of ['teams', 'whatsapp', 'telegram'] as const) {
      const channelId = await connect(type);
      const old = UNSIGNED_TIME[type](type === 'telegram' ? `${++seq}` : `old-${++seq}`, now() - 9 * DAY);
      const refused = await hook(type, channelId, old.body, old.headers);
      expect(refused, `${type}: ${refused.text}`).toAnswer(400, 'STALE_EVENT');
      expect(turnsFor(channelId)).toEqual([]);
      const late = UNSIGNED_TIME[type](type === 'telegram' ? `${++seq}` : `late-${++seq}`, now() - 7 * DAY);
      const taken = await hook(type, channelId, late.body, late.headers);
      expect(taken, `${type}: ${taken.text}`).toAnswer(200);
      expect(turnsFor(channelId)).toHaveLength(1);
    }
  });
});

/** A signed event of each platform with the given event id and sender, dated now. */
const SIGNED_EVENT = {
  telegram: (eventId: string, sender: string) => {
    const from = { id: sender, is_bot: false, first_name: 'Ada' };
    // Each event is its own message (a message's identity is chat + message_id).
    const message = { message_id: ++seq, from, chat: { id: 4242, type: 'private' }, date: now(), text: 'Long ids?' };
    return { body: JSON.stringify({ update_id: eventId, message }), headers: telegramHeaders(SECRETS.telegram) };
  },
  slack: (eventId: string, sender: string) => {
    const ts = `${now()}.${String(++seq).padStart(6, '0')}`;
    const event = { type: 'message', user: sender, channel: 'D0DM01', text: 'Long ids?', ts };
    const body = JSON.stringify({ type: 'event_callback', event_id: eventId, event });
    return { body, headers: slackHeaders(SECRETS.slack, body, now()) };
  },
  whatsapp: (eventId: string, sender: string) => {
    const message = { from: sender, id: eventId, timestamp: String(now()), type: 'text', text: { body: 'Long ids?' } };
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: 'WABA', changes: [{ field: 'messages', value: { messages: [message] } }] }],
    });
    return { body, headers: whatsAppHeaders(SECRETS.whatsapp, body) };
  },
  discord: (eventId: string, sender: string) => {
    const body = JSON.stringify({
      id: eventId,
      type: 2,
      token: 'interaction-token-long',
      channel_id: '1122334455',
      member: { user: { id: sender, username: 'linus' } },
      data: { name: 'ask', options: [{ name: 'question', type: 3, value: 'Long ids?' }] },
    });
    return { body, headers: discord.headers(body, String(now())) };
  },
} as const;

describe('platform ids longer than a DynamoDB key may be', () => {
  const LONG_IDS = {
    '1,100 digits': () => `${++seq}`.padEnd(1100, '7'),
    '1,100 emoji': () => `${++seq}${'🙂'.repeat(1100)}`,
    'plain but with a space and #': () => `${++seq} #EVENT#x`,
  };

  for (const type of ['telegram', 'slack', 'whatsapp', 'discord'] as const)
    it(`${type}: an event id of 1,100 characters or emoji is taken once and answered; its replay queues nothing more`, async () => {
      const channelId = await connect(type);
      for (const [what, make] of Object.entries(LONG_IDS)) {
        const event = SIGNED_EVENT[type](make(), '4242');
        const before = turnsFor(channelId).length;
        for (let i = 0; i < 2; i++) {
          const res = await hook(type, channelId, event.body, event.headers);
          expect(res, `${what}: ${res.text}`).toAnswer(200);
        }
        expect(turnsFor(channelId), what).toHaveLength(before + 1);
      }
      expect(await standIn.recorded(type)).toHaveLength(Object.keys(LONG_IDS).length);
    });

  for (const type of ['telegram', 'slack', 'whatsapp', 'discord'] as const)
    it(`${type}: a sender id of 1,100 characters or emoji answers 200 and runs no turn`, async () => {
      const channelId = await connect(type);
      for (const sender of ['9'.repeat(1100), '🙂'.repeat(1100)]) {
        const event = SIGNED_EVENT[type](`${++seq}`, sender);
        const res = await hook(type, channelId, event.body, event.headers);
        expect(res).toAnswer(200);
        // Discord must answer the interaction: the person sees that no answer is coming.
        if (type === 'discord') expect(res.json.type).toBe(4);
      }
      expect(turnsFor(channelId)).toEqual([]);
    });

  it('a sender id of 128 emoji (256 characters, the longest a turn carries) is answered; a proactive message finds its last-inbound time', async () => {
    const channelId = await connect('whatsapp');
    const sender = '🙂'.repeat(128);
    const event = SIGNED_EVENT.whatsapp(`wamid.${++seq}`, sender);
    expect(await hook('whatsapp', channelId, event.body, event.headers)).toAnswer(200);
    expect(turnsFor(channelId)).toHaveLength(1);
    const proactive = await invoke('POST', '/api/proactive-messages', {
      token: owner,
      body: { channelId, recipient: sender, text: 'Following up' },
    });
    expect(proactive).toAnswer(202);
  });

  it('a proactive WhatsApp recipient of 300 or 500 emoji (within its 512 characters) is 409 WINDOW_CLOSED, not 500; on Telegram 202', async () => {
    for (const recipient of ['⚡'.repeat(500), '🙂'.repeat(256), `${'🙂'.repeat(200)}${'☃'.repeat(100)}`]) {
      const wa = await connect('whatsapp');
      const res = await invoke('POST', '/api/proactive-messages', {
        token: owner,
        body: { channelId: wa, recipient, text: 'Hello' },
      });
      expect(res).toAnswer(409, 'WINDOW_CLOSED');
    }
    const tg = await connect('telegram');
    const res = await invoke('POST', '/api/proactive-messages', {
      token: owner,
      body: { channelId: tg, recipient: '⚡'.repeat(500), text: 'Hello' },
    });
    expect(res).toAnswer(202);
  });
});

describe('replayed at once: one turn on the queue', () => {
  for (const type of ['telegram', 'slack', 'whatsapp', 'discord'] as const)
    it(`${type}: eight copies of one signed event in parallel, then two more, put exactly one turn on the turns queue`, async () => {
      const channelId = await connect(type);
      const event = SIGNED_EVENT[type](type === 'whatsapp' ? `wamid.P${++seq}` : `${++seq}`, '4242');
      const send = () => hook(type, channelId, event.body, event.headers);
      const parallel = await Promise.all(Array.from({ length: 8 }, send));
      for (const res of parallel) expect(res.status, res.text).toBe(200);
      for (let i = 0; i < 2; i++) expect((await send()).status).toBe(200);
      const turns = turnsFor(channelId);
      expect(turns).toHaveLength(1);
      expect(turns[0]!.message.payload).toMatchObject({ channelId, sender: '4242', text: 'Long ids?' });
      expect(await standIn.recorded(type)).toHaveLength(1);
    });
});
