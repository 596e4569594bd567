import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errors, type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { launchBrowser } from '#test/support/browser.ts';
import { e2e } from '#test/support/e2e.ts';

const OUTPUT_DIR = fileURLToPath(new URL('../../test-output/', import.meta.url));

/**
 * Recorded in the page from its first script: clicks, hash changes, and each time the health
 * operation appears in or leaves the DOM (in one failed attempt here, the whole operation had left it).
 */
const PAGE_EVENTS = `
  window.__events = [];
  const start = performance.now();
  const note = (what) => window.__events.push(((performance.now() - start) / 1000).toFixed(1) + 's ' + what);
  addEventListener('hashchange', () => note('hashchange ' + location.hash));
  addEventListener('click', (e) => note('click ' + String(e.target.className) + ' ' + (e.target.textContent || '').slice(0, 30)), true);
  new MutationObserver(() => {
    const shown = !!document.querySelector('.opblock-summary-path[data-path="/api/health"]');
    if (window.__shown !== shown) (window.__shown = shown), note('health operation ' + (shown ? 'shown' : 'gone') + ', operations ' + document.querySelectorAll('.opblock').length);
  }).observe(document, { childList: true, subtree: true });
`;

/** What the page looked like when the answer never showed: printed, so a CI log names the cause. */
async function diagnose(page: Page, problems: string[], html: string): Promise<string> {
  const probe = await Promise.race([
    page.evaluate(
      `({ tables: document.querySelectorAll('.live-responses-table').length, details: document.querySelector('.live-responses-table tbody .response-col_description')?.textContent ?? null, url: location.href, events: window.__events })`,
    ),
    new Promise((resolve) => setTimeout(() => resolve('the page did not answer an evaluate in 5 s'), 5_000)),
  ]).catch((err: Error) => err.message);
  return `problems=${JSON.stringify(problems)} closed=${page.isClosed()} probe=${JSON.stringify(probe)} html(${html.length})=…${html.slice(-1_500)}`;
}

describe('API reference page in a browser', () => {
  // Launched inside the test, so a missing browser is this test failing, not a skipped one. Retried:
  // Swagger UI has shown the 200 status but never the body that the network had delivered (CI on two
  // stops in a row, 2 of about 25 local runs; cause not found), so each failed attempt prints what
  // the page held and the next one starts from a fresh browser.
  it('runs GET /api/health from /api/docs and shows the 200 answer', { timeout: 120_000, retry: 2 }, async () => {
    // Prepare
    const browser = await launchBrowser();
    try {
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
      await page.addInitScript(PAGE_EVENTS);
      page.on('crash', () => problems.push('the page crashed'));
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      page.on('console', (msg) => {
        if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
      });

      // Act
      await page.goto(`${baseUrl}/api/docs`, { waitUntil: 'load' });
      await expect
        .poll(() => page.locator('.swagger-ui .info .title').textContent(), { timeout: 30_000 })
        .toContain('SaaS platform API');
      mkdirSync(OUTPUT_DIR, { recursive: true });
      await page.screenshot({ path: `${OUTPUT_DIR}docs-page.png` });
      const health = page.locator('.opblock', { has: page.locator('.opblock-summary-path[data-path="/api/health"]') });
      await health.locator('.opblock-summary-control').click();
      await health.getByRole('button', { name: 'Try it out' }).click();
      const answered = page.waitForResponse((res) => res.url() === `${origin}/api/health`);
      await health.getByRole('button', { name: 'Execute' }).click();
      const response = await answered;
      const live = health.locator('.live-responses-table');
      await expect
        .poll(() => live.locator('tbody .response-col_status').first().textContent(), { timeout: 15_000 })
        .toContain('200');
      await health.screenshot({ path: `${OUTPUT_DIR}docs-health.png` });

      // Assess
      expect(response.status()).toBe(200);
      // Swagger UI may re-render the 168-operation page while it settles: poll rather than read once.
      const details = () =>
        live
          .locator('tbody .response-col_description')
          .first()
          .textContent({ timeout: 5_000 })
          .catch((err: unknown) => {
            if (err instanceof errors.TimeoutError) return '';
            throw err;
          });
      await expect
        .poll(details, { timeout: 30_000 })
        .toContain('"status": "ok"')
        .catch(async (err: unknown) => {
          const html = await health.innerHTML({ timeout: 5_000 }).catch((e: Error) => e.message);
          writeFileSync(`${OUTPUT_DIR}docs-health.html`, html);
          const diagnosis = await diagnose(page, problems, html);
          console.error(`[docs-browser] the answer never showed: ${diagnosis}`);
          throw new Error(`The answer never showed: ${diagnosis}`, { cause: err });
        });
      expect(outside, 'requests to anywhere but the local server').toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
