import { describe, expect, it } from 'vitest';
import { api, e2e, send } from '#test/support/e2e.ts';
import { billingTenant } from '#test/support/e2e-billing.ts';

/** The whole billing story over HTTP against the local server and its payment provider stand-ins. */
describe('billing story over HTTP', () => {
  it('subscribe, pay at the checkout, invoice PDF, renew, fail a renewal, refund (which ends the subscription); replaying every webhook changes nothing', async () => {
    const { owner } = await billingTenant();
    const get = async (path: string) => (await api('GET', path, { token: owner })).json.result;
    const plans = await get('/api/subscriptions/plans');
    const pro = plans.find((p: { code: string }) => p.code === 'professional');

    const created = await api('POST', '/api/subscriptions', {
      token: owner,
      body: { planId: pro.id, billingPeriod: 1 },
    });
    expect(created).toAnswer(201);
    const sessionId = created.json.result.checkoutUrl.split('/').pop();
    const page = await send('GET', `/_local/checkout/${sessionId}`);
    expect(page.text).toContain('id="pay"');
    const paid = await send('POST', `/_local/checkout/${sessionId}/pay`);
    expect(paid.json.result.responseStatus).toBe(200);
    await expect.poll(async () => (await get('/api/subscriptions/current')).status, { timeout: 15_000 }).toBe(1);

    const invoices = await get('/api/invoices');
    expect(invoices.items).toHaveLength(1);
    const pdf = await fetch(invoices.items[0].pdfUrl, { headers: { authorization: `Bearer ${owner}` } });
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    const subscriptionId = created.json.result.subscriptionId;
    const firstRenewal = (await get('/api/subscriptions/current')).renewalDate;
    expect(
      (await send('POST', `/_local/provider-a/subscriptions/${subscriptionId}/renew`)).json.result.responseStatus,
    ).toBe(200);
    await expect.poll(async () => (await get('/api/invoices')).totalCount, { timeout: 15_000 }).toBe(2);
    expect((await get('/api/subscriptions/current')).renewalDate > firstRenewal).toBe(true);

    await send('POST', `/_local/provider-a/subscriptions/${subscriptionId}/fail-renewal`);
    await expect.poll(async () => (await get('/api/subscriptions/current')).status, { timeout: 15_000 }).toBe(2);

    const firstPayment = (await get('/api/payments/history?statusFilter=1')).items.at(-1);
    const refund = await api('POST', `/api/payments/${firstPayment.id}/refund`, {
      token: owner,
      body: { reason: 'Goodwill' },
    });
    expect(refund).toAnswer(202);
    await expect
      .poll(async () => (await get('/api/payments/history?statusFilter=3')).totalCount, { timeout: 15_000 })
      .toBe(1);
    // Refunding a period's charge ends the subscription, here and at the provider (docs/decisions/billing.md, "What the tenant pays for").
    await expect.poll(async () => (await get('/api/subscriptions/current')).status, { timeout: 15_000 }).toBe(4);
    expect(await send('POST', `/_local/provider-a/subscriptions/${subscriptionId}/renew`)).toAnswer(409);

    const snapshot = async () => ({
      current: await get('/api/subscriptions/current'),
      payments: await get('/api/payments/history'),
      invoices: await get('/api/invoices'),
    });
    const before = await snapshot();
    const log = (await send('GET', '/_local/webhooks')).json.result as {
      path: string;
      headers: Record<string, string>;
      rawBody: string;
    }[];
    const ours = log.filter((w) => w.rawBody.includes(subscriptionId) || w.rawBody.includes(firstPayment.id));
    // checkout, renewal, failed renewal, refund, and the provider's subscription.deleted
    expect(ours.length).toBe(5);
    for (const w of ours)
      expect((await send('POST', w.path, { rawBody: w.rawBody, headers: w.headers })).status).toBe(200);
    // A fresh subscription paid after the replays: once it shows, the replays queued before it have been handled too.
    const again = await api('POST', '/api/subscriptions', { token: owner, body: { planId: pro.id, billingPeriod: 1 } });
    expect(again).toAnswer(201);
    await send('POST', `/_local/checkout/${again.json.result.checkoutUrl.split('/').pop()}/pay`);
    await expect
      .poll(async () => (await get('/api/invoices')).totalCount, { timeout: 15_000 })
      .toBe(before.invoices.totalCount + 1);
    const after = await snapshot();
    expect(after.payments.totalCount).toBe(before.payments.totalCount + 1);
    expect(after.payments.items.slice(1)).toEqual(before.payments.items);
    expect(after.invoices.items.slice(1)).toEqual(before.invoices.items);
    expect(after.current).toMatchObject({ subscriptionId: again.json.result.subscriptionId, status: 1 });
    expect(e2e().baseUrl).toBeTruthy();
  });
});
