import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '#test/support/browser.ts';
import { api } from '#test/support/e2e.ts';
import { billingTenant } from '#test/support/e2e-billing.ts';

describe('local checkout in a browser', () => {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
  });

  it('clicking Pay on the checkout page makes the subscription active', { timeout: 120_000 }, async () => {
    const { owner } = await billingTenant();
    const plans = (await api('GET', '/api/subscriptions/plans', { token: owner })).json.result;
    const starter = plans.find((p: { code: string }) => p.code === 'starter');
    const created = await api('POST', '/api/subscriptions', {
      token: owner,
      body: { planId: starter.id, billingPeriod: 1 },
    });
    expect(created).toAnswer(201);

    browser = await launchBrowser();
    const page = await browser.newPage();
    await page.goto(created.json.result.checkoutUrl, { waitUntil: 'load' });
    await expect.poll(() => page.locator('#amount').textContent()).toBe('USD 29.00');
    await page.click('#pay');
    await expect.poll(() => page.locator('#state').textContent(), { timeout: 15_000 }).toBe('paid');
    await expect
      .poll(async () => (await api('GET', '/api/subscriptions/current', { token: owner })).json.result.status, {
        timeout: 15_000,
      })
      .toBe(1);
  });
});
