import { beforeAll, describe, expect, it } from 'vitest';
import { discordKeys, slackHeaders } from '#test/support/channel-signing.ts';
import { useChannelStandIn } from '#test/support/channel-stand-in.ts';
import { publishedWidget } from '#test/support/conversations.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { sentMessages } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * What an attacker holding a captured webhook request can do with it later: replay a genuinely
 * signed request (refused once its signed timestamp is stale), replay a platform event after its
 * dedupe claim expired (refused by the event's own time), replay it at once and in parallel (one
 * turn on the queue).
 */
const standIn = useChannelStandIn();

let owner: string;
let agentId: string;

const SECRETS = { slack: 'slack-signing-secret-replays' };
const discord = discordKeys();
const DAY = 86_400;
const now = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  const t = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
  owner = await tokenFor({ tenantId: t });
  agentId = (await publishedWidget(owner)).agentId;
});

const CONNECTIONS = {
  slack: { secrets: { 'signing-secret': SECRETS.slack, 'bot-token': 'xoxb-replays' } },
  discord: {
    settings: { applicationId: '775799577604522054', publicKey: discord.publicKeyHex },
    secrets: { 'bot-token': 'MTA-discord-replays' },
  },
} as const;
type Type = keyof typeof CONNECTIONS;

async function connect(type: Type) {
  const res = await invoke('POST', '/api/ai/channels', {
    token: owner,
    body: { type, name: `${type} line`, agentId, ...CONNECTIONS[type] },
  });
  expect(res.status, res.text).toBe(201);
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
  expect(res.status, res.text).toBe(400);
  expect(res.json.error.code).toBe('INVALID_SIGNATURE');
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
    expect(fresh.status, fresh.text).toBe(200);
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
