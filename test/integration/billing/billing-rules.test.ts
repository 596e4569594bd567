import { identityKeys } from '#areas/identity/records.ts';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentGateway } from '#areas/billing/gateway.ts';
import { METHOD_LIMIT, type ProviderId } from '#areas/billing/vocabulary.ts';
import {
  localGateway,
  localPaymentProviders,
  renewSubscription,
  settleSession,
} from '#local/providers/payment-provider.ts';
import { get } from '#shared/data/read.ts';
import { paymentProviders } from '#areas/billing/gateway.ts';
import { PLANS } from '#areas/billing/plan-catalog.ts';
import { postWebhook, useBillingStandIns } from '#test/support/billing.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke as invokeFrom, type InvokeOptions } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * Billing rules an attacker or a race reaches: what a refund of a subscription charge
 * does, limits under concurrency, money and date checks, and the trial rule.
 */
useBillingStandIns();

const rnd = () => Math.floor(Math.random() * 250) + 1;
const invoke = (method: string, path: string, opts: InvokeOptions = {}) =>
  invokeFrom(method, path, { ip: `10.${rnd()}.${rnd()}.${rnd()}`, ...opts });

const STARTER = PLANS.find((p) => p.code === 'starter')!;
const PRO = PLANS.find((p) => p.code === 'professional')!;
const BASELINE = {
  planType: 1,
  maxAgents: STARTER.features.maxAgents,
  maxKnowledgeBases: STARTER.features.maxKnowledgeBases,
};
const PRO_LIMITS = {
  planType: 2,
  maxAgents: PRO.features.maxAgents,
  maxKnowledgeBases: PRO.features.maxKnowledgeBases,
};

let admin: string;
beforeAll(async () => {
  admin = await tokenFor({ role: 'SystemAdmin' });
});
afterEach(() => paymentProviders.install(localPaymentProviders));

const newBillingTenant = async () => {
  const id = await newTenant({ name: `Rules ${crypto.randomUUID().slice(0, 6)}`, ...BASELINE });
  return { id, owner: await tokenFor({ tenantId: id }) };
};
type Tenant = Awaited<ReturnType<typeof newBillingTenant>>;

const tenantLimits = async (id: string) => {
  const t = (await get<Record<string, unknown>>(identityKeys.tenant(id), { consistent: true }))!;
  return { planType: t.planType, maxAgents: t.maxAgents, maxKnowledgeBases: t.maxKnowledgeBases };
};
const current = async (t: Tenant) =>
  (await invoke('GET', '/api/subscriptions/current', { token: t.owner })).json.result;
const payments = async (t: Tenant) =>
  (await invoke('GET', '/api/payments/history', { token: t.owner, query: { pageSize: 100 } })).json.result;

async function subscribe(t: Tenant, opts: { trialDays?: number } = {}) {
  const res = await invoke('POST', '/api/subscriptions', {
    token: t.owner,
    body: { planId: PRO.id, billingPeriod: 1, ...opts },
  });
  expect(res).toAnswer(201);
  await settleSession(res.json.result.checkoutUrl.split('/').pop()!, 'pay');
  return res.json.result.subscriptionId as string;
}

describe('what the tenant pays for', () => {
  it('an owner refunding its own subscription charge loses the plan: subscription ended here and at the provider, limits back on the baseline', async () => {
    const t = await newBillingTenant();
    const subscriptionId = await subscribe(t);
    expect(await tenantLimits(t.id)).toEqual(PRO_LIMITS);
    const charge = (await payments(t)).items[0];

    const refund = await invoke('POST', `/api/payments/${charge.id}/refund`, {
      token: t.owner,
      body: { reason: 'Changed my mind' },
    });
    expect(refund).toAnswer(202);
    expect((await payments(t)).items[0]).toMatchObject({ id: charge.id, status: 3 });
    expect(await current(t)).toMatchObject({ subscriptionId, status: 4 });
    expect(await tenantLimits(t.id)).toEqual(BASELINE);
    expect((await get<Record<string, unknown>>(identityKeys.tenant(t.id)))!.trialExpiresAt).toBeNull();

    // The provider charges no further period, and a renewal event arriving anyway changes nothing.
    await expect(renewSubscription(subscriptionId, true)).rejects.toThrow(/cancelled/);
    const late = await postWebhook('payment-provider-a', {
      id: `evt_${crypto.randomUUID()}`,
      type: 'invoice.payment_succeeded',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: 'in_late',
          amount_paid: PRO.priceMinor,
          currency: 'USD',
          charge: `ch_${crypto.randomUUID()}`,
          metadata: { tenantId: t.id, kind: 'subscription', reference: subscriptionId },
        },
      },
    });
    expect(late).toAnswer(200);
    expect((await current(t)).status).toBe(4);
    expect(await tenantLimits(t.id)).toEqual(BASELINE);

    // The tenant may subscribe again, and pays again for the plan's limits.
    await subscribe(t);
    expect(await tenantLimits(t.id)).toEqual(PRO_LIMITS);
  });

  it('a refund made at the provider (its webhook alone) ends the subscription the same way', async () => {
    const t = await newBillingTenant();
    const subscriptionId = await subscribe(t);
    const charge = (await payments(t)).items[0];
    const refunded = await postWebhook('payment-provider-a', {
      id: `evt_${crypto.randomUUID()}`,
      type: 'charge.refunded',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: charge.providerReferenceId,
          refund: `re_${crypto.randomUUID()}`,
          metadata: { tenantId: t.id, kind: 'payment', reference: charge.id },
        },
      },
    });
    expect(refunded).toAnswer(200);
    expect((await payments(t)).items[0]).toMatchObject({ id: charge.id, status: 3 });
    expect(await current(t)).toMatchObject({ subscriptionId, status: 4 });
    expect(await tenantLimits(t.id)).toEqual(BASELINE);
  });

  it('refunding a one-off payment leaves the subscription and the limits alone', async () => {
    const t = await newBillingTenant();
    const subscriptionId = await subscribe(t);
    const method = (
      await invoke('POST', '/api/payment-methods', { token: t.owner, body: { provider: 1, token: 'tok_visa' } })
    ).json.result;
    const extra = await invoke('POST', '/api/payments/process', {
      token: t.owner,
      body: { subscriptionId, amount: 5, currency: 'USD', paymentMethodId: method.id },
    });
    const refund = await invoke('POST', `/api/payments/${extra.json.result.paymentId}/refund`, {
      token: t.owner,
      body: { reason: 'Extra seats not needed' },
    });
    expect(refund).toAnswer(202);
    expect(await current(t)).toMatchObject({ subscriptionId, status: 1 });
    expect(await tenantLimits(t.id)).toEqual(PRO_LIMITS);
  });

  it('a failed renewal suspends and lowers the limits; a successful one restores them; a cancellation lowers them', async () => {
    const t = await newBillingTenant();
    const subscriptionId = await subscribe(t);
    await renewSubscription(subscriptionId, false);
    expect((await current(t)).status).toBe(2);
    expect(await tenantLimits(t.id)).toEqual(BASELINE);
    await renewSubscription(subscriptionId, true);
    expect((await current(t)).status).toBe(1);
    expect(await tenantLimits(t.id)).toEqual(PRO_LIMITS);

    const deleted = await postWebhook('payment-provider-a', {
      id: `evt_${crypto.randomUUID()}`,
      type: 'subscription.deleted',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: { id: subscriptionId, metadata: { tenantId: t.id, kind: 'subscription', reference: subscriptionId } },
      },
    });
    expect(deleted).toAnswer(200);
    expect((await current(t)).status).toBe(4);
    expect(await tenantLimits(t.id)).toEqual(BASELINE);
  });

  it('a trial gives the plan; its failed first charge takes it away', async () => {
    const t = await newBillingTenant();
    const subscriptionId = await subscribe(t, { trialDays: 14 });
    expect(await tenantLimits(t.id)).toEqual(PRO_LIMITS);
    await renewSubscription(subscriptionId, false);
    expect(await tenantLimits(t.id)).toEqual(BASELINE);
  });
});

describe('refunds under concurrency', () => {
  it('five refund requests of one payment at once: one is accepted and exactly one reaches the provider', async () => {
    const t = await newBillingTenant();
    await subscribe(t);
    const charge = (await payments(t)).items[0];
    let refunds = 0;
    const slow = (provider: ProviderId): PaymentGateway => {
      const real = localGateway(provider);
      return {
        ...real,
        async refund(req) {
          refunds++;
          // The provider takes its time: every request has read the payment as Paid meanwhile.
          await new Promise((r) => setTimeout(r, 300));
          await real.refund(req);
        },
      };
    };
    paymentProviders.install({ gateway: slow });
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        invoke('POST', `/api/payments/${charge.id}/refund`, { token: t.owner, body: { reason: `Attempt ${i}` } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409, 409, 409, 409]);
    expect(answers.filter((a) => a.status === 409).map((a) => a.json.error.code)).toEqual(
      Array(4).fill('REFUND_ALREADY_REQUESTED'),
    );
    expect(refunds).toBe(1);
    expect((await payments(t)).items[0]).toMatchObject({ id: charge.id, status: 3 });
  });
});

describe('payment method limit', () => {
  it(`20 parallel adds store exactly ${METHOD_LIMIT}, with one default; the next is refused until one is deleted`, async () => {
    const t = await newBillingTenant();
    const add = () =>
      invoke('POST', '/api/payment-methods', { token: t.owner, body: { provider: 1, token: 'tok_visa' } });
    const answers = await Promise.all(Array.from({ length: 20 }, add));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(METHOD_LIMIT);
    expect(answers.filter((a) => a.status === 409).map((a) => a.json.error.code)).toEqual(
      Array(20 - METHOD_LIMIT).fill('LIMIT_REACHED'),
    );
    const list = (await invoke('GET', '/api/payment-methods', { token: t.owner })).json.result as {
      id: string;
      isDefault: boolean;
    }[];
    expect(list).toHaveLength(METHOD_LIMIT);
    expect(list.filter((m) => m.isDefault)).toHaveLength(1);

    const eleventh = await add();
    expect(eleventh).toAnswer(409, 'LIMIT_REACHED');
    expect(await invoke('DELETE', `/api/payment-methods/${list[3]!.id}`, { token: t.owner })).toAnswer(204);
    expect(await add()).toAnswer(201);
    expect(await add()).toAnswer(409);
    expect((await invoke('GET', '/api/payment-methods', { token: t.owner })).json.result).toHaveLength(METHOD_LIMIT);
  });

  it('the limit is the documented one: 10', () => {
    expect(METHOD_LIMIT).toBe(10);
  });
});

describe('money and dates', () => {
  it('an amount below the currency minor unit (1e-7 USD) is 400 and records nothing', async () => {
    const t = await newBillingTenant();
    const subscriptionId = await subscribe(t);
    const before = (await payments(t)).totalCount;
    for (const amount of [1e-7, 0.001, 0.004, 1e-300]) {
      const res = await invoke('POST', '/api/payments/process', {
        token: t.owner,
        body: { subscriptionId, amount, currency: 'USD' },
      });
      expect(res, `${amount}: ${res.text}`).toAnswer(400);
      expect(res.json.error.details[0].path).toBe('body.amount');
    }
    expect((await payments(t)).totalCount).toBe(before);
    expect(
      await invoke('POST', '/api/payments/process', {
        token: t.owner,
        body: { subscriptionId, amount: 0.01, currency: 'USD' },
      }),
    ).toAnswer(200);
  });

  it('history dates that are not dates are 400, never 500', async () => {
    const t = await newBillingTenant();
    for (const query of <Record<string, string>[]>[
      { startDate: '1' },
      { startDate: '0.5' },
      { endDate: '1' },
      { endDate: '0.5' },
      { startDate: '-1' },
      { startDate: '2026-01-01T25:00Z' },
      { startDate: '99999' },
    ]) {
      const res = await invoke('GET', '/api/payments/history', { token: t.owner, query });
      expect(res, `${JSON.stringify(query)}: ${res.text}`).toAnswer(400, 'VALIDATION_ERROR');
    }
    const today = new Date().toISOString().slice(0, 10);
    expect(await invoke('GET', '/api/payments/history', { token: t.owner, query: { startDate: today } })).toAnswer(200);
  });
});

describe('extend-trial', () => {
  const extend = (tenantId: string) =>
    invoke('PUT', `/api/admin/billing/subscriptions/${tenantId}/extend-trial`, {
      token: admin,
      body: { additionalDays: 7 },
    });

  it('refuses every subscription that is not trialing with 409 NOT_TRIALING, changing nothing', async () => {
    const t = await newBillingTenant();
    // Waiting for its first checkout (Inactive).
    const pending = await invoke('POST', '/api/subscriptions', {
      token: t.owner,
      body: { planId: PRO.id, billingPeriod: 1, trialDays: 14 },
    });
    expect(pending).toAnswer(201);
    const refusedPending = await extend(t.id);
    expect(refusedPending).toAnswer(409, 'NOT_TRIALING');

    // A trial that became Active with its first charge (trialExpiresAt still set on the record).
    await settleSession(pending.json.result.checkoutUrl.split('/').pop()!, 'pay');
    const trial = await current(t);
    expect(trial.status).toBe(3);
    await renewSubscription(trial.subscriptionId, true);
    const active = await current(t);
    const tenantBefore = await get<Record<string, unknown>>(identityKeys.tenant(t.id), { consistent: true });
    for (const expected of [1, 2]) {
      if (expected === 2) await renewSubscription(trial.subscriptionId, false);
      const before = await current(t);
      expect(before.status).toBe(expected);
      const refused = await extend(t.id);
      expect(refused).toAnswer(409, 'NOT_TRIALING');
      expect(await current(t)).toEqual(before);
    }
    expect(active.trialExpiresAt).toBe(trial.trialExpiresAt);
    expect((await get<Record<string, unknown>>(identityKeys.tenant(t.id), { consistent: true }))!.trialExpiresAt).toBe(
      tenantBefore!.trialExpiresAt,
    );
  });

  it('a trialing subscription is extended', async () => {
    const t = await newBillingTenant();
    await subscribe(t, { trialDays: 14 });
    const before = await current(t);
    const res = await extend(t.id);
    expect(res).toAnswer(200);
    expect(Date.parse(res.json.result.trialExpiresAt) - Date.parse(before.trialExpiresAt)).toBe(7 * 86_400_000);
  });
});
