import { beforeAll, describe, expect, it } from 'vitest';
import { lastInboundKey } from '#areas/channels/records.ts';
import { commitChange, putItem } from '#shared/data/commit.ts';
import { useChannelStandIn } from '#test/support/channel-stand-in.ts';
import { connect, hook, tenantWithAgent, whatsapp } from '#test/support/channel-fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * WhatsApp's 24-hour window as Meta enforces it: outside it only an approved template goes. A tenant
 * registers its approved templates; a proactive message outside the window goes as the named template
 * (parameters checked against the registration) instead of 409 WINDOW_CLOSED; inside, free text; and a
 * person writing after the window closed reopens it, so the agent's answer goes out.
 */
const standIn = useChannelStandIn();
let tenantId: string;
let owner: string;
let agentId: string;
let channelId: string;
const T = (id = channelId) => `/api/ai/channels/${id}/templates`;
const P = '/api/proactive-messages';

beforeAll(async () => {
  ({ tenantId, owner, agentId } = await tenantWithAgent());
  channelId = await connect(owner, agentId, 'whatsapp');
});

const register = (body: Record<string, unknown>, token = owner, id = channelId) =>
  invoke('POST', T(id), { token, body });

/** The person last wrote `hoursAgo` hours ago (the window's start, as the webhook records it). */
const lastWrote = (recipient: string, hoursAgo: number) =>
  commitChange(
    [
      putItem({
        ...lastInboundKey(tenantId, channelId, recipient),
        at: new Date(Date.now() - hoursAgo * 3600_000).toISOString(),
      }),
    ],
    null,
  );

const sentBodies = async () => (await standIn.recorded('whatsapp')).map((c) => JSON.parse(c.body));

describe('registering templates', () => {
  it('201 with the registration; the same name and language again is 409; listed newest first; deleted 204', async () => {
    const first = await register({ name: 'order_update', language: 'en_US', parameterCount: 2 });
    expect(first).toAnswer(201);
    expect(first.json.result).toMatchObject({ channelId, name: 'order_update', language: 'en_US', parameterCount: 2 });
    const again = await register({ name: 'order_update', language: 'en_US', parameterCount: 1 });
    expect(again).toAnswer(409, 'CONFLICT');
    const german = await register({ name: 'order_update', language: 'de', parameterCount: 2 });
    expect(german).toAnswer(201);
    const list = await invoke('GET', `${T()}?pageSize=10`, { token: owner });
    expect(list).toAnswer(200);
    expect(list.json.result.totalCount).toBe(2);
    expect(list.json.result.items.map((t: { language: string }) => t.language)).toEqual(['de', 'en_US']);
    const gone = await invoke('DELETE', `${T()}/${german.json.result.id}`, { token: owner });
    expect(gone).toAnswer(204);
    expect(await invoke('DELETE', `${T()}/${german.json.result.id}`, { token: owner })).toAnswer(404);
    expect((await invoke('GET', T(), { token: owner })).json.result.totalCount).toBe(1);
    // The name is free again once deleted.
    expect(await register({ name: 'order_update', language: 'de', parameterCount: 0 })).toAnswer(201);
  });

  it("names and languages as Meta spells them, or 400; another platform's connection is 409; another tenant's 404", async () => {
    for (const bad of [
      { name: 'Order Update', language: 'en_US', parameterCount: 0 },
      { name: 'ok', language: 'english', parameterCount: 0 },
      { name: 'ok', language: 'en', parameterCount: -1 },
      { name: 'ok', language: 'en', parameterCount: 101 },
      { name: 'ok', language: 'en' },
    ]) {
      const res = await register(bad);
      expect(res, JSON.stringify(bad)).toAnswer(400, 'VALIDATION_ERROR');
    }
    const telegram = await connect(owner, agentId, 'telegram');
    const other = await register({ name: 'ok', language: 'en', parameterCount: 0 }, owner, telegram);
    expect(other).toAnswer(409, 'TEMPLATES_NOT_SUPPORTED');
    const stranger = await tenantWithAgent();
    expect(await register({ name: 'ok', language: 'en', parameterCount: 0 }, stranger.owner)).toAnswer(404);
    expect(await invoke('GET', T(), { token: stranger.owner })).toAnswer(404);
    const member = await tokenFor({ tenantId, role: 'TenantMember' });
    expect(await register({ name: 'ok', language: 'en', parameterCount: 0 }, member)).toAnswer(403);
  });
});

describe('proactive messages and the window', () => {
  beforeAll(async () => {
    expect(await register({ name: 'appointment_reminder', language: 'en', parameterCount: 2 })).toAnswer(201);
  });

  it('outside the window: text alone is 409 WINDOW_CLOSED; with the template it is sent as the template', async () => {
    const to = '4915100000001';
    await lastWrote(to, 30);
    const closed = await invoke('POST', P, { token: owner, body: { channelId, recipient: to, text: 'See you soon' } });
    expect(closed).toAnswer(409, 'WINDOW_CLOSED');
    const template = { name: 'appointment_reminder', language: 'en', parameters: ['Ada', 'Tuesday 10:00'] };
    const res = await invoke('POST', P, {
      token: owner,
      body: { channelId, recipient: to, text: 'See you soon', template },
    });
    expect(res).toAnswer(202);
    const got = (await invoke('GET', `${P}/${res.json.result.id}`, { token: owner })).json.result;
    expect(got).toMatchObject({ status: 'Sent', sentAs: 'template', template, deliveryStatus: 'Sent' });
    const [body] = await sentBodies();
    expect(body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type: 'template',
      template: {
        name: 'appointment_reminder',
        language: { code: 'en' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ada' },
              { type: 'text', text: 'Tuesday 10:00' },
            ],
          },
        ],
      },
    });
  });

  it('a template not registered, in another language, or with the wrong number of parameters is 400, nothing sent', async () => {
    const to = '4915100000002';
    for (const [template, path] of [
      [{ name: 'nope', language: 'en', parameters: [] }, 'body.template.name'],
      [{ name: 'appointment_reminder', language: 'fr', parameters: ['a', 'b'] }, 'body.template.name'],
      [{ name: 'appointment_reminder', language: 'en', parameters: ['only one'] }, 'body.template.parameters'],
    ] as const) {
      const res = await invoke('POST', P, { token: owner, body: { channelId, recipient: to, template } });
      expect(res).toAnswer(400);
      expect(res.json.error.details).toEqual([expect.objectContaining({ path })]);
    }
    const none = await invoke('POST', P, { token: owner, body: { channelId, recipient: to } });
    expect(none).toAnswer(400);
    expect(await standIn.recorded()).toEqual([]);
  });

  it('inside the window: text and template given, the text goes; a template alone goes as the template', async () => {
    const to = '4915100000003';
    await lastWrote(to, 2);
    const template = { name: 'appointment_reminder', language: 'en', parameters: ['Ada', 'Friday'] };
    const both = await invoke('POST', P, {
      token: owner,
      body: { channelId, recipient: to, text: 'Free text', template },
    });
    expect(both).toAnswer(202);
    expect((await invoke('GET', `${P}/${both.json.result.id}`, { token: owner })).json.result.sentAs).toBe('text');
    const only = await invoke('POST', P, { token: owner, body: { channelId, recipient: to, template } });
    expect(only).toAnswer(202);
    const bodies = await sentBodies();
    expect(bodies.map((b) => b.type)).toEqual(['text', 'template']);
    expect(bodies[0].text.body).toBe('Free text');
  });

  it('a template on another platform is 400', async () => {
    const telegram = await connect(owner, agentId, 'telegram');
    const template = { name: 'appointment_reminder', language: 'en', parameters: ['a', 'b'] };
    const res = await invoke('POST', P, {
      token: owner,
      body: { channelId: telegram, recipient: '1', text: 'x', template },
    });
    expect(res).toAnswer(400);
    expect(res.json.error.details[0].path).toBe('body.template');
  });

  it("a person writing after the window closed reopens it: the agent's answer goes out as text, and so may a proactive one", async () => {
    const to = '4915100000004';
    await lastWrote(to, 48);
    const body = whatsapp.text(to, 'Hello again after two days');
    expect(await hook('whatsapp', channelId, body, whatsapp.headers(body))).toAnswer(200);
    const [answer] = await sentBodies();
    expect(answer).toMatchObject({ to, type: 'text' });
    expect(answer.text.body.length).toBeGreaterThan(0);
    const proactive = await invoke('POST', P, {
      token: owner,
      body: { channelId, recipient: to, text: 'Anything else?' },
    });
    expect(proactive).toAnswer(202);
  });
});
