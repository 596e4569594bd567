import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { forgetBotConnectorKeys } from '#areas/channels/bot-connector-auth.ts';
import { issueBotConnectorToken } from '#local/teams-issuer.ts';
import { useChannelStandIn } from '#test/support/channel-stand-in.ts';
import { connect, hook, TEAMS_APP_ID, teams, tenantWithAgent, turnsOf } from '#test/support/channel-fixtures.ts';
import { invoke } from '#test/support/invoke.ts';

/**
 * Teams as a bot: the Bot Connector posts activities with `Authorization: Bearer <JWT>`, signed by
 * a key of its OpenID metadata (here the local stand-in issuer's), for the bot's app id and the
 * activity's serviceUrl. Personal chats and channel messages are turns; a token that is not the
 * Bot Connector's for this bot is 400 INVALID_SIGNATURE and nothing is queued.
 */
useChannelStandIn();
let owner: string;
let agentId: string;
let channelId: string;
const SERVICE_URL = 'https://smba.trafficmanager.net/emea/';

beforeAll(async () => {
  ({ owner, agentId } = await tenantWithAgent());
  channelId = await connect(owner, agentId, 'teams', { settings: { mode: 'bot' } });
});
beforeEach(() => forgetBotConnectorKeys());

const bearer = async (over: Partial<Parameters<typeof issueBotConnectorToken>[0]> = {}) => ({
  authorization: `Bearer ${await issueBotConnectorToken({ appId: TEAMS_APP_ID, serviceUrl: SERVICE_URL, ...over })}`,
});

describe('inbound activities authenticated by the Bot Connector JWT', () => {
  it('a personal chat with a valid token is a turn, answered in that conversation', async () => {
    const body = teams.activity({ text: 'Where is my invoice?' });
    const res = await hook('teams', channelId, body, await bearer());
    expect(res).toAnswer(200);
    const turns = turnsOf(channelId);
    expect(turns).toHaveLength(1);
    expect(turns[0]!.message.payload).toMatchObject({
      text: 'Where is my invoice?',
      replyTo: { recipient: 'a:1personal-alan', serviceUrl: SERVICE_URL },
    });
  });

  it('a channel message (conversationType channel) is a turn too, its @mention removed', async () => {
    const body = teams.activity({
      text: '<at>Support bot</at> open hours?',
      conversation: {
        conversationType: 'channel',
        id: '19:general@thread.tacv2;messageid=1732700000001',
        isGroup: true,
      },
    });
    const before = turnsOf(channelId).length;
    const res = await hook('teams', channelId, body, await bearer());
    expect(res).toAnswer(200);
    expect(turnsOf(channelId)).toHaveLength(before + 1);
    expect(turnsOf(channelId).at(-1)!.message.payload.text).toBe('open hours?');
  });

  it.each([
    ['no token', async () => ({})],
    ['another bot (wrong audience)', () => bearer({ appId: '00000000-0000-4000-8000-000000000bad' })],
    ['another issuer', () => bearer({ issuer: 'https://sts.windows.net/attacker/' })],
    ['an expired token (beyond five minutes of clock skew)', () => bearer({ expiresInSeconds: -400 })],
    ['a key the metadata does not list (unknown kid)', () => bearer({ kid: 'not-a-bot-connector-key' })],
    ['a token for another serviceUrl', () => bearer({ serviceUrl: 'https://attacker.example.com/' })],
    ["the outgoing webhook's HMAC instead", async () => teams.hmac(teams.activity({}))],
  ])('%s: 400 INVALID_SIGNATURE, no turn', async (_name, headers) => {
    const body = teams.activity({});
    const before = turnsOf(channelId).length;
    const res = await hook('teams', channelId, body, (await headers()) as Record<string, string>);
    expect(res).toAnswer(400, 'INVALID_SIGNATURE');
    expect(turnsOf(channelId)).toHaveLength(before);
  });

  it("an activity of a channel the key is not endorsed for (webchat under msteams' key) is 400, no turn", async () => {
    const body = teams.activity({}).replace('"channelId":"msteams"', '"channelId":"webchat"');
    expect(body).toContain('"channelId":"webchat"');
    const before = turnsOf(channelId).length;
    const res = await hook('teams', channelId, body, await bearer());
    expect(res).toAnswer(400);
    expect(turnsOf(channelId)).toHaveLength(before);
  });

  it('the JWT does not sign the body: another text under a valid token is taken (the serviceUrl is what it binds)', async () => {
    const headers = await bearer();
    const res = await hook('teams', channelId, teams.activity({ text: 'changed in transit' }), headers);
    expect(res).toAnswer(200);
    expect(turnsOf(channelId).at(-1)!.message.payload.text).toBe('changed in transit');
    const moved = await hook(
      'teams',
      channelId,
      teams.activity({ serviceUrl: 'https://smba.trafficmanager.net/amer/' }),
      headers,
    );
    expect(moved).toAnswer(400);
  });

  it('the signing keys are fetched once per process, and again only for a kid they lack (at most every five minutes)', async () => {
    const fetches = vi.spyOn(globalThis, 'fetch');
    const metadataFetches = () =>
      fetches.mock.calls.filter(([url]) => String(url).endsWith('/_local/channels/teams/openid')).length;
    try {
      for (let i = 0; i < 3; i++)
        expect((await hook('teams', channelId, teams.activity({}), await bearer())).status).toBe(200);
      expect(metadataFetches()).toBe(1);
      for (let i = 0; i < 3; i++)
        expect((await hook('teams', channelId, teams.activity({}), await bearer({ kid: `rolled-${i}` }))).status).toBe(
          400,
        );
      expect(metadataFetches()).toBe(1);
    } finally {
      fetches.mockRestore();
    }
  });
});

describe("the connection's mode", () => {
  it('outgoing-webhook (the default) keeps the HMAC path and refuses a bearer token', async () => {
    const hmacChannel = await connect(owner, agentId, 'teams');
    const body = teams.activity({});
    expect(await hook('teams', hmacChannel, body, teams.hmac(body))).toAnswer(200);
    expect(await hook('teams', hmacChannel, teams.activity({}), await bearer())).toAnswer(400);
  });

  it('a mode that is not one of the two is 400 VALIDATION_ERROR naming the setting', async () => {
    const res = await invoke('POST', '/api/ai/channels', {
      token: owner,
      body: {
        type: 'teams',
        name: 'odd',
        agentId,
        settings: { appId: TEAMS_APP_ID, mode: 'gateway' },
        secrets: { 'app-password': 'x' },
      },
    });
    expect(res).toAnswer(400);
    expect(res.json.error.details).toEqual([expect.objectContaining({ path: 'body.settings.mode' })]);
  });
});
