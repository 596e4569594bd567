import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { getSession, settleSession, renewSubscription } from '#local/providers/payment-provider.ts';
import { keys } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { PLANS } from '#areas/billing/plan-catalog.ts';
import { useBillingStandIns } from '#test/support/billing.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke as invokeFrom, type InvokeOptions } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

useBillingStandIns();

// Each request from its own address: the money routes' per-address limit is not what these tests count.
const invoke = (method: string, path: string, opts: InvokeOptions = {}) =>
  invokeFrom(method, path, { ip: `10.${rnd()}.${rnd()}.${rnd()}`, ...opts });
const rnd = () => Math.floor(Math.random() * 250) + 1;

const STARTER = PLANS.find((p) => p.code === 'starter')!;
const PRO = PLANS.find((p) => p.code === 'professional')!;
const ENTERPRISE_YEARLY = PLANS.find((p) => p.code === 'enterprise-yearly')!;

interface Tenant {
  id: string;
  owner: string;
  member: string;
}
const newBillingTenant = async (): Promise<Tenant> => {
  const id = await newTenant({ name: `Billing ${crypto.randomUUID().slice(0, 6)}`, planType: 1 });
  return {
    id,
    owner: await tokenFor({ tenantId: id }),
    member: await tokenFor({ tenantId: id, role: 'TenantMember' }),
  };
};
let admin: string;
beforeAll(async () => {
  admin = await tokenFor({ role: 'SystemAdmin' });
});

const sessionOf = (checkoutUrl: string) => checkoutUrl.split('/').pop()!;
const current = async (t: Tenant) =>
  (await invoke('GET', '/api/subscriptions/current', { token: t.owner })).json.result;
const readTenant = async (id: string) =>
  (await ddb().send(new GetCommand({ TableName: config.tableName, Key: keys.platformItem('TENANT', id) }))).Item!;

/** Subscribes and pays through the local checkout: an Active subscription with one paid invoice. */
async function activeSubscription(t: Tenant, plan = PRO) {
  const res = await invoke('POST', '/api/subscriptions', {
    token: t.owner,
    body: { planId: plan.id, billingPeriod: plan.billingPeriod },
  });
  expect(res).toAnswer(201);
  await settleSession(sessionOf(res.json.result.checkoutUrl), 'pay');
  return res.json.result.subscriptionId as string;
}

describe('plans', () => {
  it('lists one monthly and one yearly plan per plan type, cacheable by the caller', async () => {
    const t = await newBillingTenant();
    const res = await invoke('GET', '/api/subscriptions/plans', { token: t.member });
    expect(res).toAnswer(200);
    expect(res.headers['cache-control']).toMatch(/private, max-age=\d+/);
    const combos = res.json.result
      .map((p: { type: number; billingPeriod: number }) => `${p.type}/${p.billingPeriod}`)
      .sort();
    expect(combos).toEqual(['1/1', '1/2', '2/1', '2/2', '3/1', '3/2']);
    expect(res.json.result.find((p: { id: string }) => p.id === PRO.id)).toMatchObject({
      price: 99,
      currency: 'USD',
      isTrialEligible: true,
      trialDays: 14,
    });
  });
});

describe('subscriptions', () => {
  it('activates through the checkout webhook: Paid payment, Paid invoice with a PDF, tenant on the plan', async () => {
    const t = await newBillingTenant();
    const created = await invoke('POST', '/api/subscriptions', {
      token: t.owner,
      body: { planId: PRO.id, billingPeriod: 1 },
    });
    expect(created).toAnswer(201);
    expect(created.json.result).toMatchObject({
      status: 'PENDING',
      checkoutUrl: expect.stringContaining('/_local/checkout/'),
    });
    expect(await current(t)).toMatchObject({ status: 0, planId: PRO.id, price: 99 });

    const delivery = await settleSession(sessionOf(created.json.result.checkoutUrl), 'pay');
    expect(delivery.responseStatus).toBe(200);

    const sub = await current(t);
    expect(sub).toMatchObject({ status: 1, isTrialActive: false, billingPeriod: 1 });
    expect(Date.parse(sub.renewalDate) - Date.parse(sub.startDate)).toBeGreaterThan(27 * 86_400_000);
    expect(await readTenant(t.id)).toMatchObject({ planType: 2, maxAgents: PRO.features.maxAgents });
    const payments = (await invoke('GET', '/api/payments/history', { token: t.member })).json.result;
    expect(payments.items).toHaveLength(1);
    expect(payments.items[0]).toMatchObject({
      status: 1,
      amount: 99,
      currency: 'USD',
      provider: 1,
      providerReferenceId: expect.stringMatching(/^ch_/),
    });
    const invoices = (await invoke('GET', '/api/invoices', { token: t.member })).json.result;
    expect(invoices.items).toEqual([
      expect.objectContaining({
        status: 2,
        amount: 99,
        subscriptionPlanName: 'Professional',
        pdfUrl: expect.stringContaining('/pdf'),
      }),
    ]);
    const detail = await invoke('GET', `/api/invoices/${invoices.items[0].id}`, { token: t.member });
    expect(detail.json.result).toMatchObject({
      tenantName: expect.stringMatching(/^Billing /),
      items: [{ amount: 99, quantity: 1 }],
    });
    const pdf = await invoke('GET', `/api/invoices/${invoices.items[0].id}/pdf`, { token: t.member });
    expect(pdf).toAnswer(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(Buffer.from(pdf.text, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('an unpaid subscription is replaced by a new request, and its checkout can no longer be paid', async () => {
    const t = await newBillingTenant();
    const first = await invoke('POST', '/api/subscriptions', {
      token: t.owner,
      body: { planId: PRO.id, billingPeriod: 1 },
    });
    const second = await invoke('POST', '/api/subscriptions', {
      token: t.owner,
      body: { planId: STARTER.id, billingPeriod: 1 },
    });
    expect(second).toAnswer(201);
    await expect(settleSession(sessionOf(first.json.result.checkoutUrl), 'pay')).rejects.toThrow(/expired/);
    await settleSession(sessionOf(second.json.result.checkoutUrl), 'pay');
    expect(await current(t)).toMatchObject({
      subscriptionId: second.json.result.subscriptionId,
      planId: STARTER.id,
      status: 1,
    });
    const all = (
      await invoke('GET', '/api/admin/billing/subscriptions', { token: admin, query: { pageSize: 100 } })
    ).json.result.items.filter((s: { tenantId: string }) => s.tenantId === t.id);
    expect(all.map((s: { status: number }) => s.status)).toEqual([1, 4]);
  });

  it('one live subscription per tenant; only the owner creates; a member reads', async () => {
    const t = await newBillingTenant();
    expect(await invoke('GET', '/api/subscriptions/current', { token: t.member })).toAnswer(404);
    expect(
      await invoke('POST', '/api/subscriptions', { token: t.member, body: { planId: PRO.id, billingPeriod: 1 } }),
    ).toAnswer(403);
    await activeSubscription(t);
    const again = await invoke('POST', '/api/subscriptions', {
      token: t.owner,
      body: { planId: STARTER.id, billingPeriod: 1 },
    });
    expect(again).toAnswer(409, 'SUBSCRIPTION_EXISTS');
    expect((await invoke('GET', '/api/subscriptions/current', { token: t.member })).json.result.status).toBe(1);
  });

  it('refuses plans, periods and trials that do not fit', async () => {
    const t = await newBillingTenant();
    const post = (body: unknown) => invoke('POST', '/api/subscriptions', { token: t.owner, body });
    expect(await post({ planId: crypto.randomUUID(), billingPeriod: 1 })).toAnswer(404);
    expect(await post({ planId: PRO.id, billingPeriod: 2 })).toAnswer(400);
    expect(await post({ planId: PRO.id, billingPeriod: 3 })).toAnswer(400);
    expect(await post({ planId: PRO.id, billingPeriod: 1, trialDays: 15 })).toAnswer(400);
    expect(await post({ planId: ENTERPRISE_YEARLY.id, billingPeriod: 2, trialDays: 5 })).toAnswer(400);
  });

  it('a trial starts without a charge, once per tenant, and an administrator can extend it', async () => {
    const t = await newBillingTenant();
    const res = await invoke('POST', '/api/subscriptions', {
      token: t.owner,
      body: { planId: STARTER.id, billingPeriod: 1, trialDays: 14 },
    });
    expect(res).toAnswer(201);
    await settleSession(sessionOf(res.json.result.checkoutUrl), 'pay');
    const sub = await current(t);
    expect(sub).toMatchObject({ status: 3, isTrialActive: true });
    expect(sub.trialExpiresAt).toBe(sub.renewalDate);
    expect((await invoke('GET', '/api/payments/history', { token: t.owner })).json.result.totalCount).toBe(0);

    const extend = (days: unknown, token = admin) =>
      invoke('PUT', `/api/admin/billing/subscriptions/${t.id}/extend-trial`, { token, body: { additionalDays: days } });
    expect(await extend(10, t.owner)).toAnswer(403);
    expect(await extend(0)).toAnswer(400);
    expect(await extend(91)).toAnswer(400);
    const extended = await extend(10);
    expect(extended).toAnswer(200);
    expect(Date.parse(extended.json.result.trialExpiresAt) - Date.parse(sub.trialExpiresAt)).toBe(10 * 86_400_000);
    expect((await readTenant(t.id)).trialExpiresAt).toBe(extended.json.result.trialExpiresAt);

    // The first charge at the end of the trial makes it Active.
    await renewSubscription(sub.subscriptionId, true);
    expect(await current(t)).toMatchObject({ status: 1, isTrialActive: false });
    expect(await extend(5)).toAnswer(409);
    const other = await newBillingTenant();
    expect(
      await invoke('PUT', `/api/admin/billing/subscriptions/${other.id}/extend-trial`, {
        token: admin,
        body: { additionalDays: 5 },
      }),
    ).toAnswer(404);
  });

  it('renewal extends by the period with a new invoice; a failed renewal suspends with a Failed payment', async () => {
    const t = await newBillingTenant();
    const id = await activeSubscription(t);
    const before = await current(t);
    await renewSubscription(id, true);
    const renewed = await current(t);
    expect(new Date(renewed.renewalDate).getUTCMonth()).toBe((new Date(before.renewalDate).getUTCMonth() + 1) % 12);
    expect((await invoke('GET', '/api/invoices', { token: t.owner })).json.result.totalCount).toBe(2);

    await renewSubscription(id, false);
    expect((await current(t)).status).toBe(2);
    const failed = (await invoke('GET', '/api/payments/history', { token: t.owner, query: { statusFilter: 2 } })).json
      .result;
    expect(failed.items).toEqual([expect.objectContaining({ status: 2, amount: 99 })]);
    const invoices = (await invoke('GET', '/api/invoices', { token: t.owner })).json.result.items;
    expect(invoices.map((i: { status: number }) => i.status)).toEqual([3, 2, 2]);

    await renewSubscription(id, true);
    expect((await current(t)).status).toBe(1);
  });

  it('a declined first checkout keeps the subscription pending and records the failure', async () => {
    const t = await newBillingTenant();
    const res = await invoke('POST', '/api/subscriptions', {
      token: t.owner,
      body: { planId: PRO.id, billingPeriod: 1 },
    });
    await settleSession(sessionOf(res.json.result.checkoutUrl), 'decline');
    expect(await current(t)).toMatchObject({ status: 0 });
    expect((await invoke('GET', '/api/payments/history', { token: t.owner })).json.result.items).toEqual([
      expect.objectContaining({ status: 2 }),
    ]);
    await expect(settleSession(sessionOf(res.json.result.checkoutUrl), 'pay')).rejects.toThrow(/already completed/);
  });
});

describe('payments', () => {
  it('refuses bad amounts, currencies and foreign ids, writing nothing', async () => {
    const t = await newBillingTenant();
    const other = await newBillingTenant();
    const sub = await activeSubscription(t);
    const foreignSub = await activeSubscription(other);
    const pay = (body: Record<string, unknown>) =>
      invoke('POST', '/api/payments/process', {
        token: t.owner,
        body: { subscriptionId: sub, amount: 10, currency: 'USD', ...body },
      });
    for (const bad of [
      { amount: 0 },
      { amount: -5 },
      { amount: 1.001 },
      { amount: 1.5, currency: 'JPY' },
      { currency: 'XYZ' },
      { currency: 'usd' },
      { amount: '10' },
      { amount: 2_000_000 },
    ]) {
      const res = await pay(bad);
      expect(res, JSON.stringify(bad)).toAnswer(400);
    }
    expect(await pay({ subscriptionId: foreignSub })).toAnswer(404);
    expect(await pay({ paymentMethodId: crypto.randomUUID() })).toAnswer(404);
    expect((await invoke('GET', '/api/payments/history', { token: t.owner })).json.result.totalCount).toBe(1);
    expect(await pay({ amount: 12.5, currency: 'EUR' })).toAnswer(200);
    expect(await pay({ amount: 1200, currency: 'JPY' })).toAnswer(200);
  });

  it('a stored method is charged directly; without one the answer is a checkout address', async () => {
    const t = await newBillingTenant();
    const sub = await activeSubscription(t);
    const visa = (
      await invoke('POST', '/api/payment-methods', { token: t.owner, body: { provider: 2, token: 'tok_visa' } })
    ).json.result;
    const bad = (
      await invoke('POST', '/api/payment-methods', {
        token: t.owner,
        body: { provider: 1, token: 'tok_chargeDeclined' },
      })
    ).json.result;
    const charged = await invoke('POST', '/api/payments/process', {
      token: t.owner,
      body: { subscriptionId: sub, amount: 25, currency: 'USD', paymentMethodId: visa.id },
    });
    expect(charged.json.result).toEqual({
      paymentId: expect.any(String),
      status: 'PENDING',
      checkoutUrl: null,
      expiresAt: null,
    });
    const declined = await invoke('POST', '/api/payments/process', {
      token: t.owner,
      body: { subscriptionId: sub, amount: 25, currency: 'USD', paymentMethodId: bad.id },
    });
    const hosted = await invoke('POST', '/api/payments/process', {
      token: t.owner,
      body: { subscriptionId: sub, amount: 7, currency: 'USD', description: 'Extra seats' },
    });
    expect(hosted.json.result).toMatchObject({
      status: 'PENDING',
      checkoutUrl: expect.stringContaining('/_local/checkout/'),
      expiresAt: expect.any(String),
    });

    const byId = async (id: string) =>
      (await invoke('GET', '/api/payments/history', { token: t.owner })).json.result.items.find(
        (p: { id: string }) => p.id === id,
      );
    expect(await byId(charged.json.result.paymentId)).toMatchObject({
      status: 1,
      provider: 2,
      invoiceId: expect.any(String),
    });
    expect(await byId(declined.json.result.paymentId)).toMatchObject({ status: 2, invoiceId: null });
    expect(await byId(hosted.json.result.paymentId)).toMatchObject({ status: 0 });
    expect((await getSession(sessionOf(hosted.json.result.checkoutUrl)))?.description).toBe('Extra seats');
    await settleSession(sessionOf(hosted.json.result.checkoutUrl), 'pay');
    expect(await byId(hosted.json.result.paymentId)).toMatchObject({ status: 1, amount: 7 });
  });

  it('history filters by status and date', async () => {
    const t = await newBillingTenant();
    await activeSubscription(t);
    const today = new Date().toISOString().slice(0, 10);
    const q = (query: Record<string, string | number>) =>
      invoke('GET', '/api/payments/history', { token: t.owner, query });
    expect((await q({ startDate: today, endDate: today })).json.result.totalCount).toBe(1);
    expect((await q({ startDate: '2000-01-01', endDate: '2000-01-31' })).json.result.totalCount).toBe(0);
    expect((await q({ statusFilter: 0 })).json.result.totalCount).toBe(0);
    expect((await q({ statusFilter: 1 })).json.result.totalCount).toBe(1);
    expect(await q({ startDate: today, endDate: '2000-01-01' })).toAnswer(400);
    expect(await q({ startDate: 'yesterday' })).toAnswer(400);
    expect(await q({ startDate: '2026-13-45' })).toAnswer(400);
    expect(await q({ startDate: '2026-02-30' })).toAnswer(400);
    expect(await q({ statusFilter: 9 })).toAnswer(400);
  });

  it('refunds a Paid payment once; the provider confirmation makes it Refunded and cancels its invoice', async () => {
    const t = await newBillingTenant();
    await activeSubscription(t);
    const paid = (await invoke('GET', '/api/payments/history', { token: t.owner })).json.result.items[0];
    expect(
      await invoke('POST', `/api/payments/${paid.id}/refund`, { token: t.member, body: { reason: 'x' } }),
    ).toAnswer(403);
    expect(await invoke('POST', `/api/payments/${paid.id}/refund`, { token: t.owner, body: {} })).toAnswer(400);
    const refund = await invoke('POST', `/api/payments/${paid.id}/refund`, {
      token: t.owner,
      body: { reason: 'Customer asked' },
    });
    expect(refund).toAnswer(202);
    const after = (await invoke('GET', '/api/payments/history', { token: t.owner })).json.result.items[0];
    expect(after).toMatchObject({ id: paid.id, status: 3 });
    expect((await invoke('GET', `/api/invoices/${paid.invoiceId}`, { token: t.owner })).json.result.status).toBe(4);
    const again = await invoke('POST', `/api/payments/${paid.id}/refund`, {
      token: t.owner,
      body: { reason: 'Again' },
    });
    expect(again).toAnswer(409);
    expect(
      await invoke('POST', `/api/payments/${crypto.randomUUID()}/refund`, { token: t.owner, body: { reason: 'x' } }),
    ).toAnswer(404);
  });

  it('Idempotency-Key: same key and body answer the first result; another body is 409', async () => {
    const t = await newBillingTenant();
    const sub = await activeSubscription(t);
    const key = { 'Idempotency-Key': `k-${crypto.randomUUID()}` };
    const body = { subscriptionId: sub, amount: 5, currency: 'USD' };
    const first = await invoke('POST', '/api/payments/process', { token: t.owner, body, headers: key });
    const second = await invoke('POST', '/api/payments/process', { token: t.owner, body, headers: key });
    expect(second).toAnswer(200);
    expect(second.json.result).toEqual(first.json.result);
    const other = await invoke('POST', '/api/payments/process', {
      token: t.owner,
      body: { ...body, amount: 6 },
      headers: key,
    });
    expect(other).toAnswer(409, 'IDEMPOTENCY_KEY_REUSED');
    expect(
      (await invoke('GET', '/api/payments/history', { token: t.owner, query: { statusFilter: 0 } })).json.result
        .totalCount,
    ).toBe(1);
    expect(
      await invoke('POST', '/api/payments/process', {
        token: t.owner,
        body,
        headers: { 'Idempotency-Key': 'bad key' },
      }),
    ).toAnswer(400);
  });
});

describe('payment methods', () => {
  it('exactly one default: the first, then the chosen one, then the newest left after a delete', async () => {
    const t = await newBillingTenant();
    const add = (token: string) =>
      invoke('POST', '/api/payment-methods', { token: t.owner, body: { provider: 1, token } });
    const visa = (await add('tok_visa')).json.result;
    expect(visa).toMatchObject({ isDefault: true, lastFourDigits: '4242', cardType: 'Visa', provider: 1 });
    const mc = (await add('tok_mastercard')).json.result;
    expect(mc.isDefault).toBe(false);
    const declined = await add('tok_declined');
    expect(declined).toAnswer(400, 'PAYMENT_METHOD_DECLINED');
    expect(
      await invoke('POST', '/api/payment-methods', { token: t.owner, body: { provider: 3, token: 'tok_visa' } }),
    ).toAnswer(400);
    expect(
      (await invoke('PUT', `/api/payment-methods/${mc.id}/set-default`, { token: t.owner })).json.result.isDefault,
    ).toBe(true);
    const list = async () =>
      (await invoke('GET', '/api/payment-methods', { token: t.member })).json.result as {
        id: string;
        isDefault: boolean;
      }[];
    expect((await list()).map((m) => [m.id, m.isDefault])).toEqual([
      [mc.id, true],
      [visa.id, false],
    ]);
    expect(await invoke('DELETE', `/api/payment-methods/${mc.id}`, { token: t.owner })).toAnswer(204);
    expect((await list()).map((m) => [m.id, m.isDefault])).toEqual([[visa.id, true]]);
    expect(await invoke('DELETE', `/api/payment-methods/${mc.id}`, { token: t.owner })).toAnswer(404);
    const other = await newBillingTenant();
    expect(await invoke('PUT', `/api/payment-methods/${visa.id}/set-default`, { token: other.owner })).toAnswer(404);
    expect(await invoke('DELETE', `/api/payment-methods/${visa.id}`, { token: other.owner })).toAnswer(404);
  });
});

describe('tenancy and administration', () => {
  it('another tenant never sees an invoice or payment; a SystemAdmin reads by id alone and lists all', async () => {
    const t = await newBillingTenant();
    const other = await newBillingTenant();
    await activeSubscription(t);
    const invoice = (await invoke('GET', '/api/invoices', { token: t.owner })).json.result.items[0];
    expect(await invoke('GET', `/api/invoices/${invoice.id}`, { token: other.owner })).toAnswer(404);
    expect(await invoke('GET', `/api/invoices/${invoice.id}/pdf`, { token: other.owner })).toAnswer(404);
    expect((await invoke('GET', '/api/invoices', { token: other.owner })).json.result.totalCount).toBe(0);
    expect(await invoke('GET', `/api/invoices?tenantId=${t.id}`, { token: other.owner })).toAnswer(403);
    expect((await invoke('GET', `/api/invoices/${invoice.id}?tenantId=${t.id}`, { token: admin })).json.result.id).toBe(
      invoice.id,
    );

    const all = await invoke('GET', '/api/admin/billing/subscriptions', {
      token: admin,
      query: { statusFilter: 1, pageSize: 100 },
    });
    expect(all).toAnswer(200);
    expect(all.json.result.items.find((s: { tenantId: string }) => s.tenantId === t.id)).toMatchObject({
      status: 1,
      planName: 'Professional',
      price: 99,
      tenantName: expect.stringMatching(/^Billing /),
    });
    expect(
      (
        await invoke('GET', '/api/admin/billing/subscriptions', { token: admin, query: { statusFilter: 4 } })
      ).json.result.items.some((s: { tenantId: string }) => s.tenantId === t.id),
    ).toBe(false);
    expect(await invoke('GET', '/api/admin/billing/subscriptions', { token: t.owner })).toAnswer(403);
  });
});
