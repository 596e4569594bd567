import { createServer, type Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '#test/support/browser.ts';
import { e2e, until } from '#test/support/e2e.ts';
import { publishedAgentWithKnowledge } from '#test/support/e2e-agents.ts';

/**
 * The embeddable widget in a real browser: a shop page on
 * another origin loads the script from the API, opens the bubble, talks to the published agent
 * (answers streamed), asks for a person, sees the staff reply, rates the chat, and calls nothing but
 * the API; a screenshot of the chat is saved to test-output/widget-chat.png.
 */
const OUTPUT_DIR = fileURLToPath(new URL('../../test-output/', import.meta.url));
let host: Server;
let hostOrigin: string;
let page = '';

beforeAll(async () => {
  host = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  // `localhost`, not the API's 127.0.0.1: another origin, so every call is cross-origin as on a shop's site.
  hostOrigin = `http://localhost:${(host.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => host.close(() => resolve())));

async function publishedWidget() {
  // The agent answers from a knowledge document: its answer shows the document as a citation.
  const { as, widgetId } = await publishedAgentWithKnowledge({
    tenantName: 'Widget Shop',
    welcomeMessage: 'Welcome to the shop!',
    document: { title: 'Returns policy', text: 'Returns are accepted within 30 days of purchase with the receipt.' },
    origin: hostOrigin,
  });
  const embed = await as('GET', `/api/ai/widgets/${widgetId}/embed`);
  return { as, snippet: embed.json.result.snippet as string };
}

describe('the widget on a web page', () => {
  it('chats with the agent, hands over to a person, and takes a rating', { timeout: 120_000 }, async () => {
    const { as, snippet } = await publishedWidget();
    page = `<!doctype html><html><head><title>Shop</title></head><body><h1>Shop</h1>${snippet}</body></html>`;
    const apiOrigin = new URL(e2e().baseUrl).origin;
    const browser = await launchBrowser();
    try {
      const tab = await browser.newPage();
      const origins = new Set<string>();
      tab.on('request', (r) => origins.add(new URL(r.url()).origin));
      const failures: string[] = [];
      tab.on('requestfailed', (r) => failures.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
      tab.on('pageerror', (e) => failures.push(`page error: ${e.message}`));
      await tab.goto(hostOrigin);

      tab.on('console', (m) => failures.push(`console ${m.type()}: ${m.text()}`));
      tab.on('response', async (r) => {
        if (r.status() >= 400)
          failures.push(
            `${r.request().method()} ${r.url()} ${r.status()} ${await r.text().catch(() => '')} ${r.request().postData()}`,
          );
      });
      await tab.getByRole('button', { name: 'Open chat' }).click();
      await tab
        .getByText('Welcome to the shop!')
        .waitFor({ timeout: 15_000 })
        .catch((err: Error) => {
          throw new Error(`${err.message}\n${failures.join('\n')}`);
        });
      await tab.getByText('Shop helper').waitFor();
      await tab.getByPlaceholder('Type a message').fill('how do returns work');
      const streamed = tab.waitForResponse(
        (r) => r.url().endsWith('/widget/messages') && r.request().method() === 'POST',
      );
      await tab.getByRole('button', { name: 'Send' }).click();
      expect((await streamed).headers()['content-type']).toMatch(/^text\/event-stream/);
      await tab.getByText('You said: how do returns work').waitFor({ timeout: 15_000 });
      await tab.getByText('[1] Returns policy').waitFor({ timeout: 15_000 });

      await tab.getByRole('button', { name: 'Talk to a person' }).click();
      await tab.getByText('A person will join the conversation.').first().waitFor();
      const inbox = await as('GET', '/api/conversations?status=Escalated');
      const conversationId = inbox.json.result.items[0].id as string;
      expect(
        (await as('POST', `/api/conversations/${conversationId}/messages`, { text: 'Hi, Sam here.' })).status,
      ).toBe(201);
      // The widget polls every 5 seconds.
      await tab.getByText('Hi, Sam here.').waitFor({ timeout: 20_000 });

      await tab.getByRole('button', { name: 'End chat' }).click();
      await tab.getByRole('button', { name: '4 of 5' }).click();
      await tab.getByText('Thank you!').waitFor();
      mkdirSync(OUTPUT_DIR, { recursive: true });
      await tab.screenshot({ path: `${OUTPUT_DIR}widget-chat.png` });
      const closed = await until(
        () => as('GET', `/api/conversations/${conversationId}`),
        (r) => r.json.result.status === 'Closed',
        10_000,
      );
      expect(closed.json.result).toMatchObject({ status: 'Closed', csat: 4, escalated: true });
      expect(closed.json.result.messages.filter((m: { role: string }) => m.role === 'agent')[0].text).toBe(
        'You said: how do returns work',
      );
      // Chromium reports a fetch whose body the page reads as a stream as aborted once read (the
      // server ends that stream with [DONE]: conversations-story.test.ts reads it to its end).
      const streamRead = (f: string) => f.startsWith('POST ') && f.includes('/widget/messages: net::ERR_ABORTED');
      expect(failures.filter((f) => !streamRead(f))).toEqual([]);
      // No third-party requests: the shop's page and the API only.
      expect([...origins].sort()).toEqual([apiOrigin, hostOrigin].sort());
    } finally {
      await browser.close();
    }
  });
});
