import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deliverAttempt } from '#areas/outbound-webhooks/deliver.ts';
import type { DeliveryAttempt } from '#areas/outbound-webhooks/messages.ts';
import { queueSender, type QueueMessage } from '#shared/platform/ports.ts';
import { publishedWidget, session } from '#test/support/conversations.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { addText, newBase, uploadTogether, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { signatureHeaders, webhookReceiver } from '#test/support/webhook-receiver.ts';
import { auditEntries } from '#test/support/audit.ts';

vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');
useKnowledgeStandIns();

const BASE = '/api/webhook-subscriptions';
let tenantA: string;
let ownerA: string;
let memberA: string;
let ownerB: string;
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;

beforeAll(async () => {
  tenantA = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20, maxKnowledgeBases: 10 });
  const tenantB = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
  ownerA = await tokenFor({ tenantId: tenantA });
  memberA = await tokenFor({ tenantId: tenantA, role: 'TenantMember' });
  ownerB = await tokenFor({ tenantId: tenantB });
  receiver = await webhookReceiver();
});
afterAll(() => receiver.close());

const api = (method: string, path: string, token = ownerA, body?: unknown) =>
  invoke(method, `${BASE}${path}`, { token, body });
/** A subscription to a path of its own on the receiver: its deliveries are told apart by path. */
async function subscribe(eventTypes: string[], token = ownerA, extra: Record<string, unknown> = {}) {
  const path = `/hook-${crypto.randomUUID().slice(0, 8)}`;
  const res = await api('POST', '', token, { url: receiver.url(path), eventTypes, description: null, ...extra });
  expect(res).toAnswer(201);
  return { ...(res.json.result as { id: string; secret: string }), path };
}
const deliveries = async (id: string, token = ownerA) => {
  const res = await api('GET', `/${id}/deliveries?pageSize=100`, token);
  expect(res).toAnswer(200);
  return res.json.result.items as { status: string; nextRetryAt: string; lastError: string | null }[];
};

describe('subscriptions', () => {
  it('create answers 201 with a whsec_ secret shown only there; get, list, update and delete, each audited', async () => {
    const res = await api('POST', '', ownerA, {
      url: receiver.url('/crud'),
      eventTypes: ['message.created', 'message.created', 'conversation.closed'],
      description: 'CRM sync',
      tenantId: undefined,
      secret: 'whsec_mine',
      isSystem: true,
    });
    expect(res).toAnswer(201);
    const created = res.json.result;
    expect(created.secret).toEqual(expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/));
    expect(created.secret).not.toBe('whsec_mine');
    expect(created).toMatchObject({
      url: receiver.url('/crud'),
      eventTypes: ['message.created', 'conversation.closed'],
      description: 'CRM sync',
      isActive: true,
    });
    const got = await api('GET', `/${created.id}`, memberA);
    expect(got).toAnswer(200);
    expect(got.json.result).not.toHaveProperty('secret');
    const list = await api('GET', '?pageSize=100', memberA);
    expect(list.text).not.toContain(created.secret);
    expect(list.json.result.items.map((s: { id: string }) => s.id)).toContain(created.id);
    const put = await api('PUT', `/${created.id}`, ownerA, {
      url: receiver.url('/crud2'),
      eventTypes: ['document.indexed'],
      description: null,
      isActive: false,
    });
    expect(put).toAnswer(200);
    expect(put.json.result).toMatchObject({
      url: receiver.url('/crud2'),
      eventTypes: ['document.indexed'],
      isActive: false,
    });
    expect(await api('DELETE', `/${created.id}`)).toAnswer(204);
    expect(await api('GET', `/${created.id}`)).toAnswer(404);
    const audit = await auditEntries(created.id);
    expect(audit.map((a) => a.action)).toEqual([
      'WebhookSubscriptionCreated',
      'WebhookSubscriptionUpdated',
      'WebhookSubscriptionDeleted',
    ]);
    expect(JSON.stringify(audit)).not.toContain(created.secret);
  });

  it('refuses private, reserved and plain-http targets (400 TARGET_NOT_ALLOWED) and bad bodies (400)', async () => {
    for (const url of [
      'https://10.0.0.5/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00:ec2::254]/x',
      'https://192.168.1.1/x',
      'https://user:pw@example.com/x',
      'ftp://example.com/x',
      'not a url',
    ]) {
      const res = await api('POST', '', ownerA, { url, eventTypes: ['message.created'], description: null });
      expect([res.status, res.json.error?.code], url).toEqual([400, 'TARGET_NOT_ALLOWED']);
    }
    vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '0');
    try {
      const loop = await api('POST', '', ownerA, { url: receiver.url(), eventTypes: ['message.created'] });
      expect([loop.status, loop.json.error?.code]).toEqual([400, 'TARGET_NOT_ALLOWED']);
      const https = await api('POST', '', ownerA, { url: 'https://127.0.0.1/x', eventTypes: ['message.created'] });
      expect([https.status, https.json.error?.code]).toEqual([400, 'TARGET_NOT_ALLOWED']);
    } finally {
      vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');
    }
    for (const body of [
      { url: receiver.url(), eventTypes: [] },
      { url: receiver.url(), eventTypes: ['user.deleted'] },
      { url: receiver.url(), eventTypes: ['webhook.test'] },
      { url: receiver.url() },
      { url: `https://example.com/${'x'.repeat(2000)}`, eventTypes: ['message.created'] },
    ]) {
      const res = await api('POST', '', ownerA, body);
      expect([res.status, res.json.error?.code], JSON.stringify(body).slice(0, 80)).toEqual([400, 'VALIDATION_ERROR']);
    }
  });

  it('members read but do not change (403); another tenant sees 404 everywhere and not in its list', async () => {
    const sub = await subscribe(['message.created']);
    expect(await api('POST', '', memberA, { url: receiver.url(), eventTypes: ['message.created'] })).toAnswer(403);
    expect(await api('POST', `/${sub.id}/rotate-secret`, memberA)).toAnswer(403);
    for (const [method, path, body] of [
      ['GET', `/${sub.id}`],
      ['PUT', `/${sub.id}`, { url: receiver.url(), eventTypes: ['message.created'] }],
      ['DELETE', `/${sub.id}`],
      ['POST', `/${sub.id}/test`],
      ['POST', `/${sub.id}/rotate-secret`],
      ['GET', `/${sub.id}/deliveries`],
    ] as const) {
      expect(await api(method, path, ownerB, body), `${method} ${path}`).toAnswer(404);
    }
    const listB = await api('GET', '?pageSize=100', ownerB);
    expect(listB.json.result.items.map((s: { id: string }) => s.id)).not.toContain(sub.id);
    expect(receiver.on(sub.path)).toHaveLength(0);
  });

  it('twenty-five parallel creates against the limit of twenty create exactly twenty', async () => {
    const t = await newTenant();
    const owner = await tokenFor({ tenantId: t });
    const results = await Promise.all(
      Array.from({ length: 25 }, () =>
        api('POST', '', owner, { url: receiver.url('/limit'), eventTypes: ['message.created'] }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(results.filter((r) => r.status === 409).map((r) => r.json.error.code)).toEqual(
      Array(5).fill('SUBSCRIPTION_LIMIT_REACHED'),
    );
    expect((await api('GET', '?pageSize=100', owner)).json.result.totalCount).toBe(20);
  });
});

describe('deliveries', () => {
  it('the test route sends a webhook.test that verifies with the secret as a receiver checks it; the log shows it', async () => {
    const sub = await subscribe(['message.created']);
    const res = await api('POST', `/${sub.id}/test`);
    expect(res).toAnswer(202);
    const [got] = receiver.on(sub.path);
    expect(got).toBeDefined();
    const verified = new Webhook(sub.secret).verify(got!.body, signatureHeaders(got!.headers)) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(verified).toMatchObject({ type: 'webhook.test', data: { subscriptionId: sub.id } });
    expect(got!.headers['webhook-id']).toBe(res.json.result.eventId);
    expect(got!.headers['content-type']).toBe('application/json');
    // Another secret, or a changed body, does not verify.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`).verify(got!.body, signatureHeaders(got!.headers)),
    ).toThrow();
    expect(() => new Webhook(sub.secret).verify(`${got!.body} `, signatureHeaders(got!.headers))).toThrow();
    const [log] = await deliveries(sub.id, memberA);
    expect(log).toMatchObject({
      eventId: res.json.result.eventId,
      eventType: 'webhook.test',
      status: 'succeeded',
      statusCode: 200,
      attempts: 1,
      nextRetryAt: null,
    });
    expect((await auditEntries(sub.id)).map((a) => a.action)).toContain('WebhookSubscriptionTested');
  });

  it('a 500 is retried after a back-off with the same webhook-id; the log shows the retry, then success', async () => {
    const sub = await subscribe(['message.created']);
    const real = await queueSender();
    const queued: { message: QueueMessage; delaySeconds?: number }[] = [];
    queueSender.install({ send: async (_q, message, opts) => void queued.push({ message, ...opts }) });
    try {
      receiver.answer(500);
      expect(await api('POST', `/${sub.id}/test`)).toAnswer(202);
      expect(queued).toHaveLength(1);
      const before = Date.now();
      await deliverAttempt(queued[0]!.message.payload as DeliveryAttempt);
      const [retrying] = await deliveries(sub.id);
      expect(retrying).toMatchObject({ status: 'retrying', statusCode: 500, attempts: 1 });
      expect(retrying!.lastError).toEqual(expect.stringMatching(/500/));
      const wait = Date.parse(retrying!.nextRetryAt) - before;
      expect(wait).toBeGreaterThanOrEqual(9_000);
      expect(wait).toBeLessThan(15_000);
      expect(queued).toHaveLength(2);
      expect(queued[1]).toMatchObject({ delaySeconds: 10, message: { payload: { attempt: 2 } } });
      await deliverAttempt(queued[1]!.message.payload as DeliveryAttempt);
    } finally {
      queueSender.install(real);
    }
    const got = receiver.on(sub.path);
    expect(got).toHaveLength(2);
    expect(got[0]!.headers['webhook-id']).toBe(got[1]!.headers['webhook-id']);
    for (const g of got)
      expect(() => new Webhook(sub.secret).verify(g.body, signatureHeaders(g.headers))).not.toThrow();
    const [done] = await deliveries(sub.id);
    expect(done).toMatchObject({
      status: 'succeeded',
      statusCode: 200,
      attempts: 2,
      nextRetryAt: null,
      lastError: null,
    });
  });

  it('a receiver that keeps failing is tried six times, then the delivery is failed with no next retry', async () => {
    const sub = await subscribe(['message.created']);
    receiver.answer(500, 502, 503, 500, 500, 500);
    expect(await api('POST', `/${sub.id}/test`)).toAnswer(202);
    expect(receiver.on(sub.path)).toHaveLength(6);
    const [log] = await deliveries(sub.id);
    expect(log).toMatchObject({ status: 'failed', statusCode: 500, attempts: 6, nextRetryAt: null });
  });

  it('rotation: the old secret stops verifying, the new one verifies; the secret is shown once', async () => {
    const sub = await subscribe(['message.created']);
    const rotated = await api('POST', `/${sub.id}/rotate-secret`);
    expect(rotated).toAnswer(200);
    const fresh = rotated.json.result.secret as string;
    expect(fresh).toEqual(expect.stringMatching(/^whsec_/));
    expect(fresh).not.toBe(sub.secret);
    expect(rotated.json.result.secretRotatedAt).toEqual(expect.any(String));
    await api('POST', `/${sub.id}/test`);
    const [got] = receiver.on(sub.path);
    expect(() => new Webhook(sub.secret).verify(got!.body, signatureHeaders(got!.headers))).toThrow();
    expect(new Webhook(fresh).verify(got!.body, signatureHeaders(got!.headers))).toMatchObject({
      type: 'webhook.test',
    });
    expect((await api('GET', `/${sub.id}`)).text).not.toContain(fresh);
    const audit = await auditEntries(sub.id);
    expect(audit.map((a) => a.action)).toContain('WebhookSubscriptionSecretRotated');
    expect(JSON.stringify(audit)).not.toContain(fresh);
  });
});

describe('events', () => {
  it('a widget conversation sends message.created, conversation.escalated and conversation.closed, only to its tenant', async () => {
    const subA = await subscribe(['message.created', 'conversation.escalated', 'conversation.closed']);
    const subB = await subscribe(['message.created', 'conversation.escalated', 'conversation.closed'], ownerB);
    const onlyEscalated = await subscribe(['conversation.escalated']);
    const inactive = await subscribe(['message.created'], ownerA, { isActive: false });
    const widget = await publishedWidget(ownerA);
    const s = await session(widget.widgetKey);
    expect(await s.send('hello there')).toAnswer(200);
    await s.escalate('wants a person');
    await invoke('PUT', `/api/conversations/${s.conversationId}/status`, {
      token: ownerA,
      body: { status: 'Closed' },
    });
    const got = receiver.on(subA.path);
    for (const g of got)
      expect(() => new Webhook(subA.secret).verify(g.body, signatureHeaders(g.headers))).not.toThrow();
    const types = got.map((g) => g.json.type);
    expect(types).toEqual(['message.created', 'message.created', 'conversation.escalated', 'conversation.closed']);
    expect(got[0]!.json.data).toMatchObject({
      conversationId: s.conversationId,
      channel: 'widget',
      message: { role: 'visitor', text: 'hello there' },
    });
    expect(got[1]!.json.data.message.role).toBe('agent');
    expect(got[2]!.json.data).toMatchObject({
      conversationId: s.conversationId,
      status: 'Escalated',
      escalationReason: 'wants a person',
    });
    expect(got[3]!.json.data).toMatchObject({ conversationId: s.conversationId, status: 'Closed' });
    expect(JSON.stringify(got)).not.toMatch(/sessionHash|searchText/);
    expect(new Set(got.map((g) => g.headers['webhook-id'])).size).toBe(4);
    expect(receiver.on(onlyEscalated.path).map((g) => g.json.type)).toEqual(['conversation.escalated']);
    expect(receiver.on(inactive.path)).toHaveLength(0);
    expect(receiver.on(subB.path)).toHaveLength(0);
    expect((await deliveries(subA.id)).map((d) => d.status)).toEqual(Array(4).fill('succeeded'));
  });

  it('knowledge sends document.indexed and document.failed', async () => {
    const sub = await subscribe(['document.indexed', 'document.failed']);
    const kbId = (await newBase(ownerA)).id;
    const ok = await addText(ownerA, kbId, 'Returns', 'Orders can be returned within 30 days.');
    expect(ok).toAnswer(202);
    const bad = await addText(ownerA, kbId, 'Blank', '   \n\n   ');
    expect(bad).toAnswer(202);
    const got = receiver.on(sub.path);
    expect(got.map((g) => [g.json.type, g.json.data.documentId])).toEqual([
      ['document.indexed', ok.json.result.id],
      ['document.failed', bad.json.result.id],
    ]);
    expect(got[0]!.json.data).toMatchObject({ kbId, title: 'Returns', status: 'Indexed', chunkCount: 1 });
    expect(got[1]!.json.data).toMatchObject({ title: 'Blank', status: 'Failed', error: 'The document holds no text' });
  });

  it('documents indexed in one delivery each send their own document.indexed', async () => {
    const sub = await subscribe(['document.indexed']);
    const kbId = (await newBase(ownerA)).id;
    const { ids, deliver } = await uploadTogether(
      ownerA,
      Array.from({ length: 35 }, (_, n) => ({
        kbId,
        title: `Policy ${n}`,
        text: `Rule ${n}: refunds take ${n} days.`,
      })),
    );
    await deliver();
    const got = receiver.on(sub.path);
    expect(got.map((g) => g.json.data.documentId).sort()).toEqual([...ids].sort());
    expect(got.find((g) => g.json.data.documentId === ids[34])!.json.data).toMatchObject({
      kbId,
      title: 'Policy 34',
      status: 'Indexed',
      chunkCount: 1,
    });
  });

  it('a subscription deleted while a delivery is queued receives nothing', async () => {
    const sub = await subscribe(['message.created']);
    const real = await queueSender();
    const queued: QueueMessage[] = [];
    queueSender.install({ send: async (_q, message) => void queued.push(message) });
    try {
      await api('POST', `/${sub.id}/test`);
    } finally {
      queueSender.install(real);
    }
    expect(await api('DELETE', `/${sub.id}`)).toAnswer(204);
    expect(await deliverAttempt(queued[0]!.payload as DeliveryAttempt)).toEqual({ delivered: false });
    expect(receiver.on(sub.path)).toHaveLength(0);
  });
});
