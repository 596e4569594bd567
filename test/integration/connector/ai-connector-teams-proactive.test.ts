import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { forgetBotConnectorKeys } from '#areas/channels/bot-connector-auth.ts';
import { teamsReferenceKey } from '#areas/connector/records.ts';
import { sendToChannel } from '#areas/channels/send-to-channel.ts';
import { teamsReference } from '#areas/connector/teams-reference.ts';
import { queueDueProactiveMessages } from '#areas/connector/proactive.ts';
import { commitChange, deleteItem } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { issueBotConnectorToken } from '#local/teams-issuer.ts';
import { useChannelStandIn } from '#test/support/channel-stand-in.ts';
import { connect, hook, next, TEAMS_APP_ID, teams, tenantWithAgent } from '#test/support/channel-fixtures.ts';
import { invoke } from '#test/support/invoke.ts';

/**
 * A Teams bot writes first only through a conversation reference the Bot Connector taught it: an
 * activity of the user's (a message, or installing the bot) leaves its serviceUrl, conversation and
 * accounts, and the proactive message goes there, to the stand-in's record as the Bot Connector
 * would receive it. A user the bot never heard from is 409 NO_CONVERSATION_REFERENCE; an outgoing
 * webhook cannot write first at all (409 PROACTIVE_NOT_SUPPORTED).
 */
const standIn = useChannelStandIn();
let tenantId: string;
let owner: string;
let agentId: string;
let channelId: string;
const P = '/api/proactive-messages';
const EMEA = 'https://smba.trafficmanager.net/emea/';
const AMER = 'https://smba.trafficmanager.net/amer/';
const BOT = { id: `28:${TEAMS_APP_ID}`, name: 'Support bot' };

beforeAll(async () => {
  ({ tenantId, owner, agentId } = await tenantWithAgent());
  channelId = await connect(owner, agentId, 'teams', { settings: { mode: 'bot' } });
});
beforeEach(() => forgetBotConnectorKeys());

/** A person with their own personal chat with the bot. */
const person = () => {
  const n = next();
  const aad = `6e3b1c4f-0000-4000-8000-${String(n).padStart(12, '0')}`;
  return {
    aad,
    from: { id: `29:1user-${n}`, name: `User ${n}`, aadObjectId: aad },
    conversation: { conversationType: 'personal', tenantId: 'azure-tenant', id: `a:1personal-${n}` },
  };
};
type Person = ReturnType<typeof person>;

/** An activity of theirs, posted by the Bot Connector (its JWT for this bot and serviceUrl) to `channel`. */
async function activity(
  p: Person,
  o: { serviceUrl?: string; text?: string; type?: string; channel?: string; conversationId?: string } = {},
) {
  const serviceUrl = o.serviceUrl ?? EMEA;
  const body = teams.activity({
    from: p.from,
    conversation: { ...p.conversation, ...(o.conversationId ? { id: o.conversationId } : {}) },
    serviceUrl,
    ...(o.text ? { text: o.text } : {}),
    ...(o.type ? { type: o.type } : {}),
  });
  const token = await issueBotConnectorToken({ appId: TEAMS_APP_ID, serviceUrl });
  return hook('teams', o.channel ?? channelId, body, { authorization: `Bearer ${token}` });
}

const proactive = (recipient: string, text: string, o: { token?: string; channel?: string } = {}) =>
  invoke('POST', P, { token: o.token ?? owner, body: { channelId: o.channel ?? channelId, recipient, text } });

/** The Bot Connector calls that carried `text` (the agent's answers to the activities are calls too). */
const callsWith = async (text: string) =>
  (await standIn.recorded('teams')).filter(
    (c) => c.url.includes('/v3/conversations/') && JSON.parse(c.body).text === text,
  );

const serviceCall = (serviceUrl: string, conversationId: string) =>
  `${standIn.base}/_local/channels/teams/service/${encodeURIComponent(serviceUrl)}/v3/conversations/${encodeURIComponent(conversationId)}/activities`;

describe('through the conversation reference a personal chat left', () => {
  it('a message in the personal chat, then a proactive message to the user: sent to their conversation at its serviceUrl', async () => {
    const alan = person();
    expect(await activity(alan, { text: 'Hello bot' })).toAnswer(200);
    const res = await proactive(alan.aad, 'Your order has shipped');
    expect(res).toAnswer(202);
    expect(res.json.result).toMatchObject({ channelType: 'teams', recipient: alan.aad, status: 'Queued' });
    const got = (await invoke('GET', `${P}/${res.json.result.id}`, { token: owner })).json.result;
    expect(got).toMatchObject({ status: 'Sent', error: null, deliveryStatus: 'Sent' });
    const [call, ...more] = await callsWith('Your order has shipped');
    expect(more).toHaveLength(0);
    expect(call!.url).toBe(serviceCall(EMEA, alan.conversation.id));
    expect(call!.headers.authorization).toEqual(expect.stringMatching(/^Bearer local-teams-token-/));
    expect(call!.responseStatus).toBe(201);
    expect(JSON.parse(call!.body)).toEqual({
      type: 'message',
      text: 'Your order has shipped',
      textFormat: 'plain',
      serviceUrl: EMEA,
      channelId: 'msteams',
      from: BOT,
      recipient: alan.from,
      conversation: alan.conversation,
      channelData: { tenant: { id: 'azure-tenant' } },
    });
  });

  it('installing the bot (conversationUpdate, no text, no turn) is enough to be written to', async () => {
    const grace = person();
    expect(await activity(grace, { type: 'conversationUpdate' })).toAnswer(200);
    const res = await proactive(grace.aad, 'Welcome aboard');
    expect(res).toAnswer(202);
    const [call] = await callsWith('Welcome aboard');
    expect(call!.url).toBe(serviceCall(EMEA, grace.conversation.id));
  });

  it("a channel conversation is addressed by its id (not its member: the user's personal chat is another conversation)", async () => {
    const mason = person();
    const thread = `19:general-${next()}@thread.tacv2;messageid=1732700000001`;
    const body = teams.activity({
      from: mason.from,
      conversation: { conversationType: 'channel', id: thread, isGroup: true, tenantId: 'azure-tenant' },
      text: '<at>Support bot</at> hello',
    });
    const token = await issueBotConnectorToken({ appId: TEAMS_APP_ID, serviceUrl: EMEA });
    expect(await hook('teams', channelId, body, { authorization: `Bearer ${token}` })).toAnswer(200);
    expect((await proactive(mason.aad, 'to the person')).json.error?.code).toBe('NO_CONVERSATION_REFERENCE');
    expect(await proactive(thread, 'to the thread')).toAnswer(202);
    expect((await callsWith('to the thread'))[0]!.url).toBe(serviceCall(EMEA, thread));
  });

  it('a later activity from another serviceUrl and conversation moves the reference; the next message follows it', async () => {
    const ada = person();
    expect(await activity(ada, { text: 'first' })).toAnswer(200);
    expect(await proactive(ada.aad, 'before the move')).toAnswer(202);
    expect((await callsWith('before the move'))[0]!.url).toBe(serviceCall(EMEA, ada.conversation.id));
    const moved = `a:1personal-moved-${next()}`;
    expect(await activity(ada, { serviceUrl: AMER, conversationId: moved, text: 'again' })).toAnswer(200);
    expect(await proactive(ada.aad, 'after the move')).toAnswer(202);
    const [after] = await callsWith('after the move');
    expect(after!.url).toBe(serviceCall(AMER, moved));
    expect(JSON.parse(after!.body)).toMatchObject({ serviceUrl: AMER, conversation: { id: moved } });
  });

  it('activities of one user arriving at once (from two serviceUrls): every one 200, one reference kept, and it is one of theirs', async () => {
    const kim = person();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => activity(kim, { serviceUrl: i % 2 ? AMER : EMEA, text: `burst ${i}` })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const kept = await get<{ reference: { serviceUrl: string } }>(teamsReferenceKey(tenantId, channelId, kim.aad), {
      consistent: true,
    });
    expect([EMEA, AMER]).toContain(kept?.reference.serviceUrl);
    expect(await proactive(kim.aad, 'after the burst')).toAnswer(202);
    expect((await callsWith('after the burst'))[0]!.url).toBe(
      serviceCall(kept!.reference.serviceUrl, kim.conversation.id),
    );
  });

  it('an unchanged reference is not rewritten by every message of the chat', async () => {
    const lin = person();
    expect(await activity(lin, { text: 'one' })).toAnswer(200);
    const key = teamsReferenceKey(tenantId, channelId, lin.aad);
    const first = await get<{ storedAt: string }>(key, { consistent: true });
    expect(first?.storedAt).toEqual(expect.stringMatching(/^\d{4}-/));
    await new Promise((r) => setTimeout(r, 5));
    expect(await activity(lin, { text: 'two' })).toAnswer(200);
    expect((await get<{ storedAt: string }>(key, { consistent: true }))?.storedAt).toBe(first!.storedAt);
    expect(await activity(lin, { text: 'three', serviceUrl: AMER })).toAnswer(200);
    expect((await get<{ storedAt: string }>(key, { consistent: true }))?.storedAt).not.toBe(first!.storedAt);
  });
});

describe('a scheduled message reads the reference at its send', () => {
  const schedule = (recipient: string, text: string, at: string) =>
    invoke('POST', P, { token: owner, body: { channelId, recipient, text, scheduledAt: at } });

  it('it goes where the newest activity points, and Failed with the reason when the reference is gone', async () => {
    const at = new Date(Date.now() + 3600_000).toISOString();
    const ada = person();
    expect(await activity(ada, { text: 'hi' })).toAnswer(200);
    const moving = await schedule(ada.aad, 'scheduled, moved', at);
    expect(moving).toAnswer(202);
    const moved = `a:1personal-moved-${next()}`;
    expect(await activity(ada, { serviceUrl: AMER, conversationId: moved, text: 'again' })).toAnswer(200);

    const lin = person();
    expect(await activity(lin, { text: 'hi' })).toAnswer(200);
    const orphan = await schedule(lin.aad, 'scheduled, orphaned', at);
    expect(orphan).toAnswer(202);
    await commitChange([deleteItem(teamsReferenceKey(tenantId, channelId, lin.aad))], null);

    await queueDueProactiveMessages(Date.parse(at) + 1000);
    expect((await callsWith('scheduled, moved'))[0]!.url).toBe(serviceCall(AMER, moved));
    const failed = (await invoke('GET', `${P}/${orphan.json.result.id}`, { token: owner })).json.result;
    expect(failed).toMatchObject({
      status: 'Failed',
      error: expect.stringMatching(/has not heard from this recipient/),
    });
    expect(await callsWith('scheduled, orphaned')).toEqual([]);
  });
});

describe('no reference, no message', () => {
  it('a user the bot never heard from: 409 NO_CONVERSATION_REFERENCE, nothing stored or sent', async () => {
    const before = (await invoke('GET', `${P}?channelId=${channelId}`, { token: owner })).json.result.totalCount;
    const res = await proactive(person().aad, 'Hello stranger');
    expect(res).toAnswer(409, 'NO_CONVERSATION_REFERENCE');
    expect((await invoke('GET', `${P}?channelId=${channelId}`, { token: owner })).json.result.totalCount).toBe(before);
    expect(await standIn.recorded('teams')).toEqual([]);
  });

  it('an activity refused (a token for another bot) leaves no reference', async () => {
    const eve = person();
    const body = teams.activity({ from: eve.from, conversation: eve.conversation });
    const token = await issueBotConnectorToken({ appId: '00000000-0000-4000-8000-000000000bad', serviceUrl: EMEA });
    expect(await hook('teams', channelId, body, { authorization: `Bearer ${token}` })).toAnswer(400);
    expect((await proactive(eve.aad, 'x')).json.error?.code).toBe('NO_CONVERSATION_REFERENCE');
  });

  it("the bot's own activity echoed back, or one with a serviceUrl longer than any, leaves none", async () => {
    const own = person();
    const echo = teams.activity({ from: { ...own.from, role: 'bot' }, conversation: own.conversation });
    const token = await issueBotConnectorToken({ appId: TEAMS_APP_ID, serviceUrl: EMEA });
    expect(await hook('teams', channelId, echo, { authorization: `Bearer ${token}` })).toAnswer(200);
    expect((await proactive(own.aad, 'x')).json.error?.code).toBe('NO_CONVERSATION_REFERENCE');
    const long = person();
    expect(await activity(long, { serviceUrl: `${EMEA}${'a'.repeat(600)}/` })).toAnswer(200);
    expect((await proactive(long.aad, 'x')).json.error?.code).toBe('NO_CONVERSATION_REFERENCE');
  });

  it("another tenant's connection cannot use the reference: its own bot has not heard from the user (409), and this connection is 404 to it", async () => {
    const alan = person();
    expect(await activity(alan, { text: 'hi' })).toAnswer(200);
    const other = await tenantWithAgent();
    const theirs = await connect(other.owner, other.agentId, 'teams', { settings: { mode: 'bot' } });
    const res = await proactive(alan.aad, 'From the other tenant', { token: other.owner, channel: theirs });
    expect(res).toAnswer(409, 'NO_CONVERSATION_REFERENCE');
    const borrowed = await proactive(alan.aad, 'Through theirs', { token: other.owner });
    expect(borrowed).toAnswer(404);
    expect(await callsWith('From the other tenant')).toEqual([]);
    expect(await callsWith('Through theirs')).toEqual([]);
  });
});

describe('an outgoing webhook cannot write first', () => {
  it('409 PROACTIVE_NOT_SUPPORTED, even to a user who wrote through it; nothing stored or sent', async () => {
    const hmacChannel = await connect(owner, agentId, 'teams');
    const alan = person();
    const body = teams.activity({ from: alan.from, conversation: alan.conversation });
    expect(await hook('teams', hmacChannel, body, teams.hmac(body))).toAnswer(200);
    const res = await proactive(alan.aad, 'Hello', { channel: hmacChannel });
    expect(res).toAnswer(409, 'PROACTIVE_NOT_SUPPORTED');
    expect(await callsWith('Hello')).toEqual([]);
  });
});

describe("deployed, the Bot Connector is called at the reference's own serviceUrl", () => {
  it('POST {serviceUrl}/v3/conversations/{id}/activities with the bot token, nothing in between', async () => {
    const alan = person();
    expect(await activity(alan, { text: 'hi', serviceUrl: AMER })).toAnswer(200);
    const reference = (await teamsReference(tenantId, channelId, alan.aad))!;
    const saved = { fn: process.env.AWS_LAMBDA_FUNCTION_NAME, svc: process.env.CHANNEL_TEAMS_SERVICE_URL };
    const sent: { url: string; body: string }[] = [];
    const real = globalThis.fetch;
    const fetches = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = String(input);
      if (!url.startsWith('https://smba.')) return real(input, init);
      sent.push({ url, body: String(init?.body) });
      return new Response(JSON.stringify({ id: '1:deployed' }), {
        status: 201,
        headers: { 'content-type': 'application/json' },
      });
    });
    // The worker's view: a deployed function (no stand-in for the serviceUrl), the login still the stand-in's.
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'channel-worker';
    delete process.env.CHANNEL_TEAMS_SERVICE_URL;
    try {
      const connection = {
        id: channelId,
        tenantId,
        type: 'teams' as const,
        settings: { appId: TEAMS_APP_ID },
        credentials: { appPassword: 'teams-app-password-platforms' },
      };
      const out = await sendToChannel(connection, {
        recipient: reference.conversation.id,
        serviceUrl: reference.serviceUrl,
        teamsReference: reference,
        text: 'deployed send',
      });
      expect(out).toEqual({ platformMessageId: '1:deployed' });
      expect(sent.map((c) => c.url)).toEqual([
        `${AMER}v3/conversations/${encodeURIComponent(alan.conversation.id)}/activities`,
      ]);
      expect(JSON.parse(sent[0]!.body)).toMatchObject({ serviceUrl: AMER, recipient: alan.from });
    } finally {
      fetches.mockRestore();
      if (saved.fn === undefined) delete process.env.AWS_LAMBDA_FUNCTION_NAME;
      else process.env.AWS_LAMBDA_FUNCTION_NAME = saved.fn;
      process.env.CHANNEL_TEAMS_SERVICE_URL = saved.svc;
    }
  });
});
