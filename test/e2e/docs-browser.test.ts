import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errors, type Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { e2e } from '../support/e2e.ts';

const OUTPUT_DIR = fileURLToPath(new URL('../../test-output/', import.meta.url));

describe('API reference page in a browser', () => {
  let browser: Browser | undefined;

  afterAll(async () => {
    await browser?.close();
  });

  // Launched inside the test, so a missing browser is this test failing, not a skipped one.
  it('runs GET /api/health from /api/docs and shows the 200 answer', { timeout: 120_000 }, async () => {
    // Prepare
    browser = await launchBrowser();
    const { baseUrl } = e2e();
    const origin = new URL(baseUrl).origin;
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const outside: string[] = [];
    const problems: string[] = [];
    // Anything not from the local server (a CDN, a validator, telemetry) is recorded and refused.
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    page.on('crash', () => problems.push('the page crashed'));
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
    });

    // Act
    await page.goto(`${baseUrl}/api/docs`, { waitUntil: 'load' });
    await expect.poll(() => page.locator('.swagger-ui .info .title').textContent(), { timeout: 30_000 }).toContain('SaaS platform API');
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: `${OUTPUT_DIR}docs-page.png` });
    const health = page.locator('.opblock', { has: page.locator('.opblock-summary-path[data-path="/api/health"]') });
    await health.locator('.opblock-summary-control').click();
    await health.getByRole('button', { name: 'Try it out' }).click();
    const answered = page.waitForResponse((res) => res.url() === `${origin}/api/health`);
    await health.getByRole('button', { name: 'Execute' }).click();
    const response = await answered;
    const live = health.locator('.live-responses-table');
    await expect.poll(() => live.locator('tbody .response-col_status').first().textContent(), { timeout: 15_000 }).toContain('200');
    await health.screenshot({ path: `${OUTPUT_DIR}docs-health.png` });

    // Assess
    expect(response.status()).toBe(200);
    // Swagger UI may re-render the 168-operation page while it settles: poll rather than read once.
    const body = () =>
      live
        .locator('tbody .response-col_description')
        .first()
        .textContent({ timeout: 5_000 })
        .catch((err: unknown) => {
          if (err instanceof errors.TimeoutError) return '';
          throw err;
        });
    await expect
      .poll(body, { timeout: 45_000 })
      .toContain('"status": "ok"')
      .catch(async (err: unknown) => {
        writeFileSync(`${OUTPUT_DIR}docs-health.html`, await health.innerHTML({ timeout: 5_000 }).catch((e: Error) => e.message));
        throw err;
      });
    expect(outside, 'requests to anywhere but the local server').toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
