import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { launchBrowser } from './browser.ts';
import { api, e2e, type ApiResponse } from './e2e.ts';
import { publishedAgentWithKnowledge } from './e2e-agents.ts';

/**
 * A shop's site for the widget's browser tests: pages served from `localhost` (another origin than
 * the API's 127.0.0.1, so every call is cross-origin as on a real site), each page with the embed
 * snippet the API hands out; a published agent that answers from a "Returns policy" document.
 */
export const OUTPUT_DIR = fileURLToPath(new URL('../../test-output/', import.meta.url));
export const PHONE = { width: 375, height: 667 };
export const DESKTOP = { width: 1280, height: 800 };

export interface Shop {
  origin: string;
  apiOrigin: string;
  snippet: string;
  widgetId: string;
  as: Awaited<ReturnType<typeof publishedAgentWithKnowledge>>['as'];
  /** A named staff member's reply to a conversation of the shop. */
  staff: { firstName: string; reply(conversationId: string, text: string): Promise<ApiResponse> };
  browser: Browser;
  close(): Promise<void>;
}

export async function openShop(theme?: { primaryColor: string; title: string; position: 'left' | 'right' }) {
  let snippet = '';
  const server: Server = createServer((req, res) => {
    const title = (req.url ?? '/').replace(/[^a-z0-9/-]/gi, '');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Shop ${title}</title></head>` +
          `<body><main><h1>Shop ${title}</h1><p><a href="/other">Other page</a></p></main>${snippet}</body></html>`,
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  const shop = await publishedAgentWithKnowledge({
    tenantName: 'Widget Shop',
    welcomeMessage: 'Welcome to the shop!',
    document: { title: 'Returns policy', text: 'Returns are accepted within 30 days of purchase with the receipt.' },
    origin,
  });
  if (theme) {
    const put = await shop.as('PUT', `/api/ai/widgets/${shop.widgetId}`, { theme });
    expect(put).toAnswer(200);
  }
  const embed = await shop.as('GET', `/api/ai/widgets/${shop.widgetId}/embed`);
  expect(embed).toAnswer(200);
  snippet = embed.json.result.snippet;
  // The platform's administrator, a real user with a name, answers for the shop.
  const login = await api('POST', '/api/auth/login', {
    localAddress: '127.0.0.61',
    body: { email: e2e().adminEmail, password: e2e().adminPassword },
  });
  expect(login).toAnswer(200);
  const staff = {
    firstName: login.json.result.user.firstName as string,
    reply: (conversationId: string, text: string) =>
      api('POST', `/api/conversations/${conversationId}/messages?tenantId=${shop.tenantId}`, {
        token: login.json.result.accessToken,
        body: { text },
      }),
  };
  const browser = await launchBrowser();
  return {
    origin,
    apiOrigin: new URL(e2e().baseUrl).origin,
    snippet,
    widgetId: shop.widgetId,
    as: shop.as,
    staff,
    browser,
    async close() {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  } satisfies Shop;
}

/** A visitor's tab; what went wrong in it (page errors, failed calls other than a stream read) is kept. */
export async function visit(shop: Shop, viewport = DESKTOP, context?: BrowserContext) {
  const ctx = context ?? (await shop.browser.newContext({ viewport, hasTouch: viewport === PHONE }));
  const tab = await ctx.newPage();
  const problems: string[] = [];
  const apiCalls: string[] = [];
  tab.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  tab.on('request', (r) => {
    if (r.url().startsWith(shop.apiOrigin)) apiCalls.push(`${r.method()} ${new URL(r.url()).pathname}`);
  });
  await tab.goto(shop.origin);
  return { tab, ctx, problems, apiCalls };
}

/** The widget's shadow root is open: Playwright's locators reach into it. */
export const bubble = (tab: Page) => tab.getByRole('button', { name: 'Open chat' });
export const input = (tab: Page) => tab.getByRole('textbox', { name: 'Message' });
export const messages = (tab: Page) => tab.getByRole('log');

export async function screenshot(tab: Page, name: string) {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  await tab.screenshot({ path: `${OUTPUT_DIR}widget-${name}.png` });
}

/** The conversation the inbox shows for this shop (newest first). */
export async function latestConversation(shop: Shop, status?: string) {
  const list = await shop.as('GET', `/api/conversations${status ? `?status=${status}` : ''}`);
  return list.json.result.items as { id: string; status: string; messageCount: number }[];
}

/** The tests' tsconfig has no DOM types: the page's globals, as far as these helpers use them (type only). */
interface PageGlobals {
  getComputedStyle(e: unknown): Record<string, string>;
  document: {
    activeElement: { shadowRoot: { activeElement: { getAttribute(n: string): string | null } | null } | null } | null;
  };
}

/** A computed style of an element in the widget. */
export const styleOf = (l: Locator, prop: string) =>
  l.evaluate((e, p) => (globalThis as unknown as PageGlobals).getComputedStyle(e)[p], prop);

/** The accessible name of what has the keyboard focus inside the widget's shadow root, or null. */
export const focused = (tab: Page) =>
  tab.evaluate(() => {
    // Serialized into the page: only what is written inside this function exists there.
    const inner = (globalThis as unknown as PageGlobals).document.activeElement?.shadowRoot?.activeElement;
    return inner ? (inner.getAttribute('aria-label') ?? inner.getAttribute('id')) : null;
  });
