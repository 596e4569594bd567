import type { SQSEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { localQueue } from '#local/local-queue.ts';
import { applyWebhookEvent } from '#areas/billing/provider-events.ts';
import { billingKeys } from '#areas/billing/records.ts';
import { get } from '#shared/data/read.ts';
import type { WebhookPayload } from '#areas/billing/events.ts';
import { handler as webhookWorker } from '#functions/webhook-worker/index.ts';
import { signingSecret } from '#areas/billing/secrets.ts';
import { PLANS } from '#areas/billing/plan-catalog.ts';
import { postWebhook, useBillingStandIns } from '#test/support/billing.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tempDir } from '#test/support/temp-dir.ts';
import { sentMessages } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';

useBillingStandIns();

const PRO = PLANS.find((p) => p.code === 'professional')!;
const A = 'payment-provider-a';
const B = 'payment-provider-b';
let t: string;
let owner: string;
let subscriptionId: string;

beforeAll(async () => {
  t = await newTenant({ name: 'Webhook Co' });
  owner = await tokenFor({ tenantId: t });
  const res = await invoke('POST', '/api/subscriptions', { token: owner, body: { planId: PRO.id, billingPeriod: 1 } });
  subscriptionId = res.json.result.subscriptionId;
});

const checkoutEvent = (id = `evt_${crypto.randomUUID()}`) => ({
  id,
  type: 'checkout.completed',
  created: Math.floor(Date.now() / 1000),
  data: {
    object: {
      id: 'cs_1',
      amount_total: 9900,
      currency: 'USD',
      charge: `ch_${crypto.randomUUID()}`,
      metadata: { tenantId: t, kind: 'subscription', reference: subscriptionId },
    },
  },
});
const status = async () =>
  (await invoke('GET', '/api/subscriptions/current', { token: owner })).json.result.status as number;
const invoiceCount = async () =>
  (await invoke('GET', '/api/invoices', { token: owner })).json.result.totalCount as number;
const marker = (provider: string, id: string) =>
  get<Record<string, unknown>>(billingKeys.webhookEvent(provider, id), { consistent: true });
const queued = () => sentMessages.filter((m) => m.queue === 'webhooks').length;

describe('webhook signatures', () => {
  it('refuses a tampered body, a wrong secret, a stale or future timestamp and a missing header, queueing nothing', async () => {
    const event = checkoutEvent();
    const rawBody = JSON.stringify(event);
    const before = queued();
    const now = Math.floor(Date.now() / 1000);
    const tamperedHeaders = (await import('#areas/billing/signatures.ts')).signProviderA(
      await signingSecret(A),
      rawBody,
      now,
    );
    const cases = [
      invoke('POST', '/api/webhooks/payment-provider-a', {
        rawBody: rawBody.replace('9900', '1'),
        headers: tamperedHeaders,
        contentType: 'application/json',
      }),
      postWebhook(A, event, { secret: 'whsec_wrong' }),
      postWebhook(A, event, { at: now - 301 }),
      postWebhook(A, event, { at: now + 301 }),
      invoke('POST', '/api/webhooks/payment-provider-a', { rawBody, contentType: 'application/json' }),
      postWebhook(A, event, { headers: { 'webhook-signature': `t=${now},v1=zz` } }),
      postWebhook(B, { eventId: 'b1' }, { secret: 'wrong' }),
      postWebhook(B, { eventId: 'b1' }, { at: now - 400 }),
    ];
    for (const [i, res] of (await Promise.all(cases)).entries()) {
      expect(res, `case ${i}`).toAnswer(400, 'INVALID_SIGNATURE');
    }
    expect(queued() - before).toBe(0);
  });

  it('accepts any of several v1 signatures (secret rotation) and applies the event once', async () => {
    const event = checkoutEvent();
    const rawBody = JSON.stringify(event);
    const now = Math.floor(Date.now() / 1000);
    const { signProviderA } = await import('#areas/billing/signatures.ts');
    const good = signProviderA(await signingSecret(A), rawBody, now)['webhook-signature']!.split(',v1=')[1];
    const old = signProviderA('whsec_old', rawBody, now)['webhook-signature']!.split(',v1=')[1];
    const res = await invoke('POST', '/api/webhooks/payment-provider-a', {
      rawBody,
      headers: { 'webhook-signature': `t=${now},v1=${old},v1=${good}` },
      contentType: 'application/json',
    });
    expect(res).toAnswer(200);
    expect(res.json.result).toEqual({ received: true, eventId: event.id });
    expect(await status()).toBe(1);
    expect(await marker(A, event.id)).toMatchObject({ outcome: 'applied' });
  });

  it('refuses malformed bodies (400) and records unknown kinds as ignored (200)', async () => {
    const bad = await postWebhook(A, null, { rawBody: '{"id":' });
    expect(bad.json.error.code).toBe('INVALID_WEBHOOK_BODY');
    const wrongShape = await postWebhook(A, {
      id: 'evt_x',
      type: 'checkout.completed',
      created: 1,
      data: { object: { id: 'cs' } },
    });
    expect(wrongShape).toAnswer(400, 'INVALID_WEBHOOK_BODY');
    const unknown = await postWebhook(A, {
      id: 'evt_unknown_1',
      type: 'customer.updated',
      created: 1,
      data: { object: {} },
    });
    expect(unknown).toAnswer(200);
    expect(await marker(A, 'evt_unknown_1')).toMatchObject({ outcome: 'ignored', eventType: 'customer.updated' });
    const bUnknown = await postWebhook(B, {
      eventId: 'bev_u',
      type: 'payment.status',
      tenantId: t,
      paymentReference: crypto.randomUUID(),
      providerPaymentId: 'p',
      status: 'ON_HOLD',
      amount: 1,
      currency: 'USD',
    });
    expect(bUnknown).toAnswer(200);
    expect(await marker(B, 'bev_u')).toMatchObject({ outcome: 'ignored' });
  });
});

describe('applying events', () => {
  it('a replayed event changes nothing; concurrent deliveries of one event apply it once', async () => {
    const renew = {
      id: `evt_${crypto.randomUUID()}`,
      type: 'invoice.payment_succeeded',
      created: 1,
      data: {
        object: {
          id: 'in_1',
          amount_paid: 9900,
          currency: 'USD',
          charge: 'ch_r',
          metadata: { tenantId: t, kind: 'subscription', reference: subscriptionId },
        },
      },
    };
    const invoicesBefore = await invoiceCount();
    const renewalBefore = (await invoke('GET', '/api/subscriptions/current', { token: owner })).json.result.renewalDate;
    // Straight into the apply step, in parallel: only the transaction's marker keeps them apart.
    const payload = {
      provider: A,
      eventId: renew.id,
      eventType: renew.type,
      action: {
        kind: 'subscription.renewed',
        tenantId: t,
        subscriptionId,
        amountMinor: 9900,
        currency: 'USD',
        chargeRef: 'ch_r',
      },
    } as WebhookPayload;
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => applyWebhookEvent(payload)));
    const applied = outcomes.filter((o) => o.status === 'fulfilled' && o.value === 'applied').length;
    expect(applied).toBe(1);
    // Losers either saw the marker or had to retry; a retry then finds the marker.
    for (const o of outcomes) if (o.status === 'rejected') expect(await applyWebhookEvent(payload)).toBe('duplicate');
    expect(await invoiceCount()).toBe(invoicesBefore + 1);
    // The same event through the worker, several records at once with the same message id.
    const record = (n: number) =>
      ({
        messageId: `m${n}`,
        body: JSON.stringify({ id: `${A}:${renew.id}`, type: 'payment.webhook', payload }),
      }) as SQSEvent['Records'][number];
    await Promise.all([1, 2, 3].map((n) => webhookWorker({ Records: [record(n)] })));
    expect(await postWebhook(A, renew)).toAnswer(200);
    expect(await invoiceCount()).toBe(invoicesBefore + 1);
    const renewal = (await invoke('GET', '/api/subscriptions/current', { token: owner })).json.result.renewalDate;
    expect(new Date(renewal).getUTCMonth()).toBe((new Date(renewalBefore).getUTCMonth() + 1) % 12);
  });

  it('a message that keeps failing is parked in the dead-letter queue, not dropped', async () => {
    const queue = localQueue({
      dataDir: tempDir('billing-dlq-'),
      maxAttempts: 3,
      backoffMs: 1,
      loadWorker: async () => webhookWorker,
    });
    // An event for a tenant item that cannot be read as one (the tenant key holds a broken record) fails every time.
    await queue.send('webhooks', {
      id: `${A}:poison`,
      type: 'payment.webhook',
      payload: { provider: A, eventId: 'poison', eventType: 'checkout.completed', action: null } as unknown as Record<
        string,
        unknown
      >,
    });
    await queue.drain();
    const letters = queue.deadLetters();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ queue: 'webhooks', attempts: 3 });
    expect(JSON.parse(letters[0]!.body).payload.eventId).toBe('poison');
    expect(await marker(A, 'poison')).toBeUndefined();
  });

  it('provider B callbacks settle, fail and refund payments', async () => {
    const method = (
      await invoke('POST', '/api/payment-methods', { token: owner, body: { provider: 2, token: 'tok_mastercard' } })
    ).json.result;
    const pay = await invoke('POST', '/api/payments/process', {
      token: owner,
      body: { subscriptionId, amount: 3, currency: 'USD', paymentMethodId: method.id },
    });
    const id = pay.json.result.paymentId;
    const one = async () =>
      (await invoke('GET', '/api/payments/history', { token: owner })).json.result.items.find(
        (p: { id: string }) => p.id === id,
      );
    expect(await one()).toMatchObject({ status: 1, provider: 2 });
    expect(
      await invoke('POST', `/api/payments/${id}/refund`, { token: owner, body: { reason: 'Duplicate' } }),
    ).toAnswer(202);
    expect(await one()).toMatchObject({ status: 3 });
    // A late FAILED callback for a refunded payment is stale: nothing moves.
    const late = await postWebhook(B, {
      eventId: 'bev_late',
      type: 'payment.status',
      tenantId: t,
      paymentReference: id,
      providerPaymentId: 'x',
      status: 'FAILED',
      amount: 300,
      currency: 'USD',
    });
    expect(late).toAnswer(200);
    expect(await marker(B, 'bev_late')).toMatchObject({ outcome: 'stale' });
    expect(await one()).toMatchObject({ status: 3 });
  });

  it('subscription.deleted cancels the subscription and frees the tenant for a new one', async () => {
    const other = await newTenant({ name: 'Cancel Co' });
    const token = await tokenFor({ tenantId: other });
    const sub = (await invoke('POST', '/api/subscriptions', { token, body: { planId: PRO.id, billingPeriod: 1 } })).json
      .result.subscriptionId;
    const del = await postWebhook(A, {
      id: `evt_${crypto.randomUUID()}`,
      type: 'subscription.deleted',
      created: 1,
      data: { object: { id: sub, metadata: { tenantId: other, kind: 'subscription', reference: sub } } },
    });
    expect(del).toAnswer(200);
    expect((await invoke('GET', '/api/subscriptions/current', { token })).json.result.status).toBe(4);
    expect(await invoke('POST', '/api/subscriptions', { token, body: { planId: PRO.id, billingPeriod: 1 } })).toAnswer(
      201,
    );
  });
});
