import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { startGuardProxy, type GuardProxy } from './guard-proxy.ts';
import { launchChromium } from './chromium.ts';
import { checkUrl, pinnedAddress, Refused } from './page-guard.ts';
import { BROWSER_LIMITS, type BrowserActionRequest, type BrowserStep, type StepResult } from './steps.ts';

/** What the function answers: the tool outcome the agent runtime hands to the model. */
export type BrowserOutcome = { ok: true; result: BrowserResult } | { ok: false; error: string; result?: BrowserResult };

export interface BrowserResult {
  /** The page's text came from a web page: untrusted material, never instructions. */
  content: 'untrusted-web-page';
  steps: StepResult[];
  finalUrl: string | null;
  /** Requests the guard refused (a sub-resource, a redirect, a popup, a download, an upload). */
  refused: { target: string; reason: string }[];
}

export type SaveScreenshot = (png: Buffer) => Promise<{ url: string; expiresAt: string }>;

class OutOfTime extends Error {}

const firstLine = (err: unknown) =>
  (err instanceof Error ? err.message : String(err)).split('\n')[0]!.replace(/\s+/g, ' ').slice(0, 300);

/** Each request the page makes, checked before the browser may send it; results cached per host for the call. */
function interceptor(allowedHosts: readonly string[], refused: BrowserResult['refused']) {
  const verdicts = new Map<string, Promise<void>>();
  let requests = 0;
  return async (route: Route) => {
    const raw = route.request().url();
    try {
      if (++requests > BROWSER_LIMITS.requests) throw new Refused(`More than ${BROWSER_LIMITS.requests} requests`);
      // data: and blob: URLs carry their content with them: nothing leaves the browser.
      if (/^(data|blob):/i.test(raw)) return await route.continue();
      const url = checkUrl(raw, allowedHosts);
      const key = `${url.protocol}//${url.hostname}`;
      if (!verdicts.has(key))
        verdicts.set(
          key,
          pinnedAddress(url.hostname, url.protocol as 'http:' | 'https:').then(() => {}),
        );
      await verdicts.get(key);
      await route.continue();
    } catch (err) {
      refused.push({ target: raw.slice(0, 200), reason: err instanceof Refused ? err.message : firstLine(err) });
      await route.abort('blockedbyclient').catch(() => {});
    }
  };
}

/** Popups, downloads, file choosers and dialogs: refused or dismissed, and said in the result. */
function refuseSideDoors(context: BrowserContext, page: Page, refused: BrowserResult['refused']) {
  context.on('page', (p) => {
    if (p === page) return;
    refused.push({ target: 'popup', reason: 'Popups and new windows are refused' });
    p.close().catch(() => {});
  });
  page.on('download', (d) => {
    refused.push({ target: d.url().slice(0, 200), reason: 'Downloads are refused' });
    d.cancel().catch(() => {});
  });
  // Listening is what keeps the native chooser shut: no file is ever set.
  page.on('filechooser', () => refused.push({ target: 'file upload', reason: 'File uploads are refused' }));
  page.on('dialog', (d) => d.dismiss().catch(() => {}));
}

async function runStep(
  page: Page,
  step: BrowserStep,
  ctx: { remaining: () => number; allowedHosts: readonly string[]; save: SaveScreenshot },
): Promise<StepResult> {
  const wait = () => Math.max(1, Math.min(ctx.remaining() - 500, BROWSER_LIMITS.elementWaitMs));
  const element = (s: { selector?: string; text?: string }) =>
    (s.selector !== undefined ? page.locator(s.selector) : page.getByText(s.text!, { exact: false })).first();
  const where = async () => ({ url: page.url(), title: (await page.title().catch(() => '')).slice(0, 200) });
  const settle = () =>
    page.waitForLoadState('load', { timeout: Math.max(1, Math.min(ctx.remaining(), 5000)) }).catch(() => {});
  switch (step.action) {
    case 'navigate': {
      const url = checkUrl(step.url, ctx.allowedHosts);
      await page.goto(url.toString(), { waitUntil: 'load', timeout: Math.max(1, ctx.remaining()) });
      return { action: step.action, ok: true, ...(await where()) };
    }
    case 'click':
      await element(step).click({ timeout: wait() });
      await settle();
      return { action: step.action, ok: true, ...(await where()) };
    case 'fill':
      await page.locator(step.selector).first().fill(step.value, { timeout: wait() });
      return { action: step.action, ok: true };
    case 'select':
      await page.locator(step.selector).first().selectOption(step.value, { timeout: wait() });
      return { action: step.action, ok: true };
    case 'wait_for':
      await element(step).waitFor({ state: 'visible', timeout: wait() });
      return { action: step.action, ok: true };
    case 'read': {
      const text = step.selector
        ? await page.locator(step.selector).first().innerText({ timeout: wait() })
        : await page.locator('body').innerText({ timeout: wait() });
      const clean = text
        .replace(/[ \t]+/g, ' ')
        .replace(/\n{3,}/g, '\n\n')
        .trim();
      const truncated = clean.length > BROWSER_LIMITS.readChars;
      return {
        action: step.action,
        ok: true,
        text: clean.slice(0, BROWSER_LIMITS.readChars),
        ...(truncated ? { truncated } : {}),
      };
    }
    case 'screenshot': {
      const png = await page.screenshot({ type: 'png', timeout: wait() });
      const saved = await ctx.save(png);
      return { action: step.action, ok: true, screenshotUrl: saved.url, expiresAt: saved.expiresAt };
    }
  }
}

/**
 * One call: a browser of its own (nothing is kept between calls: no cookies, cache or storage),
 * its traffic through the guard proxy and the request interception, the steps in order, all within
 * the tool's time. A failed step stops the call; what ran before it is in the answer.
 */
export async function runBrowser(req: BrowserActionRequest, save: SaveScreenshot): Promise<BrowserOutcome> {
  const { budget } = req;
  const deadline = Date.now() + budget.timeoutSeconds * 1000;
  const remaining = () => deadline - Date.now();
  const result: BrowserResult = { content: 'untrusted-web-page', steps: [], finalUrl: null, refused: [] };
  let proxy: GuardProxy | undefined;
  let browser: Browser | undefined;
  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OutOfTime()), Math.max(1, remaining()));
  });
  outOfTime.catch(() => {});
  try {
    proxy = await startGuardProxy({ allowedHosts: budget.allowedHosts, maxBytes: BROWSER_LIMITS.bytes });
    result.refused = proxy.refused;
    browser = await Promise.race([launchChromium(proxy.server), outOfTime]).catch((err) => {
      if (err instanceof OutOfTime) throw err;
      throw new Error(`The browser could not start (${firstLine(err)}); nothing was done`);
    });
    const context = await browser.newContext({
      acceptDownloads: false,
      serviceWorkers: 'block',
      viewport: { ...BROWSER_LIMITS.viewport },
      ignoreHTTPSErrors: false,
    });
    await context.route('**/*', interceptor(budget.allowedHosts, result.refused));
    // WebSockets are not request-intercepted; none is needed to navigate, click, fill and read.
    await context.routeWebSocket(/.*/, (ws) => {
      result.refused.push({ target: ws.url().slice(0, 200), reason: 'WebSockets are refused' });
      ws.close();
    });
    const page = await context.newPage();
    refuseSideDoors(context, page, result.refused);
    for (const [i, step] of req.steps.entries()) {
      if (remaining() <= 0) throw new OutOfTime();
      try {
        result.steps.push(
          await Promise.race([runStep(page, step, { remaining, allowedHosts: budget.allowedHosts, save }), outOfTime]),
        );
      } catch (err) {
        if (err instanceof OutOfTime) throw err;
        const refusedFirst = result.refused.at(-1);
        const why = err instanceof Refused ? err.message : firstLine(err);
        result.steps.push({ action: step.action, ok: false, error: why });
        result.finalUrl = page.url();
        return {
          ok: false,
          error:
            `Step ${i + 1} (${step.action}) failed: ${why}` +
            (refusedFirst ? `; refused: ${refusedFirst.target} (${refusedFirst.reason})` : '') +
            `. Steps after it were not run.`,
          result,
        };
      }
    }
    result.finalUrl = page.url();
    return { ok: true, result };
  } catch (err) {
    if (err instanceof OutOfTime)
      return {
        ok: false,
        error: `The browser action took longer than ${budget.timeoutSeconds} seconds and was stopped after ${result.steps.length} of ${req.steps.length} steps`,
        result,
      };
    return { ok: false, error: firstLine(err), result };
  } finally {
    clearTimeout(timer);
    await browser?.close().catch(() => {});
    await proxy?.close().catch(() => {});
  }
}
