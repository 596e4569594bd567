import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bubble,
  input,
  latestConversation,
  messages,
  openShop,
  PHONE,
  screenshot,
  visit,
  type Shop,
} from '#test/support/widget-page.ts';

/**
 * The widget never leaves a visitor stuck: the conversation follows them across a page change and a
 * reload (and a person's reply still reaches them there), writing to a person shows the hand-off
 * once and no endless typing, and a lost connection keeps the message with a retry.
 */
let shop: Shop;
const HAND_OFF = 'A person will join the conversation.';

beforeAll(async () => {
  shop = await openShop();
}, 120_000);
afterAll(() => shop?.close());

async function chatting(viewport?: typeof PHONE) {
  const v = await visit(shop, viewport);
  await bubble(v.tab).click();
  await v.tab.getByText('Welcome to the shop!').waitFor({ timeout: 15_000 });
  return v;
}

async function say(tab: Awaited<ReturnType<typeof chatting>>['tab'], text: string) {
  await input(tab).fill(text);
  await input(tab).press('Enter');
}

describe('the widget keeps the conversation', () => {
  it('across a page change and a reload, where a reply from a person still arrives', { timeout: 120_000 }, async () => {
    const { tab, ctx, problems } = await chatting();
    try {
      await say(tab, 'where is my parcel');
      await tab.getByText('You said: where is my parcel').waitFor({ timeout: 15_000 });
      await tab.getByRole('button', { name: 'Talk to a person' }).click();
      await tab.getByText(HAND_OFF).waitFor();
      const started = await latestConversation(shop);

      // Another page of the same site: the panel is open again with the conversation, no new one.
      await tab.getByRole('link', { name: 'Other page' }).click();
      await tab.waitForURL(/\/other$/);
      await tab.getByText('You said: where is my parcel').waitFor({ timeout: 15_000 });
      await tab.getByText('Welcome to the shop!').waitFor();
      expect(await bubble(tab).getAttribute('aria-expanded')).toBe('true');

      const [escalated] = await latestConversation(shop, 'Escalated');
      expect(await shop.staff.reply(escalated!.id, 'It left our warehouse today.')).toAnswer(201);
      await messages(tab).getByText('It left our warehouse today.').waitFor({ timeout: 20_000 });

      await tab.reload();
      await messages(tab).getByText('It left our warehouse today.').waitFor({ timeout: 15_000 });
      expect(await messages(tab).getByText('You said: where is my parcel').count()).toBe(1);
      expect(await latestConversation(shop)).toHaveLength(started.length);
      await screenshot(tab, 'after-reload');

      // Closed and on yet another page, a reply marks the bubble as unread.
      await tab.getByRole('button', { name: 'Close chat' }).click();
      await tab.goto(`${shop.origin}/third`);
      await bubble(tab).waitFor();
      expect(await bubble(tab).getAttribute('aria-expanded')).toBe('false');
      expect(await shop.staff.reply(escalated!.id, 'Anything else?')).toAnswer(201);
      await expect.poll(() => bubble(tab).locator('.dot').isVisible(), { timeout: 20_000 }).toBe(true);
      await bubble(tab).click();
      await messages(tab).getByText('Anything else?').waitFor();
      expect(problems).toEqual([]);
    } finally {
      await ctx.close();
    }
  });
});

describe('the widget has no stuck states', () => {
  it('writing to a person shows the hand-off once and no endless typing', { timeout: 90_000 }, async () => {
    const { tab, ctx } = await chatting(PHONE);
    try {
      await tab.getByRole('button', { name: 'Talk to a person' }).click();
      await tab.getByText(HAND_OFF).waitFor();
      for (const text of ['are you there?', 'hello?']) {
        const sent = tab.waitForResponse(
          (r) => r.url().endsWith('/widget/messages') && r.request().method() === 'POST',
        );
        await say(tab, text);
        expect((await sent).status()).toBe(200);
        await messages(tab).getByText(text).waitFor();
        // The answer (none: a person has the conversation) ends the typing dots.
        await expect.poll(() => messages(tab).locator('.typing').count(), { timeout: 10_000 }).toBe(0);
      }
      expect(await tab.getByText(HAND_OFF).count()).toBe(1);
      expect(await messages(tab).locator('.agent', { hasText: 'You said' }).count()).toBe(0);
      await screenshot(tab, 'escalated-writing');
    } finally {
      await ctx.close();
    }
  });

  it('keeps a message the network lost, says so kindly, and sends it once on retry', { timeout: 90_000 }, async () => {
    const { tab, ctx } = await chatting();
    try {
      const post = (url: URL) => url.pathname.endsWith('/widget/messages');
      await tab.route(post, (route) =>
        route.request().method() === 'POST' ? route.abort('internetdisconnected') : route.continue(),
      );
      await say(tab, 'is this lost?');
      const notice = tab.getByText("We couldn't reach the chat. Your message is kept; try again in a moment.");
      await notice.waitFor({ timeout: 15_000 });
      const line = messages(tab).locator('.visitor', { hasText: 'is this lost?' });
      expect(await line.getAttribute('class')).toContain('unsent');
      expect(await messages(tab).locator('.typing').count()).toBe(0);
      await screenshot(tab, 'unreachable');

      await tab.unroute(post);
      await tab.getByRole('button', { name: 'Retry' }).click();
      await tab.getByText('You said: is this lost?').waitFor({ timeout: 15_000 });
      expect(await notice.count()).toBe(0);
      expect(await line.getAttribute('class')).not.toContain('unsent');
      const [open] = await latestConversation(shop, 'Open');
      const detail = await shop.as('GET', `/api/conversations/${open!.id}`);
      const mine = detail.json.result.messages.filter((m: { role: string; text: string }) => m.role === 'visitor');
      expect(mine.map((m: { text: string }) => m.text)).toEqual(['is this lost?']);
    } finally {
      await ctx.close();
    }
  });

  it('shows a cap the site owner set as its kind message, with no retry', { timeout: 90_000 }, async () => {
    const caps = (sessionTurns: number | null) =>
      shop.as('PUT', `/api/ai/widgets/${shop.widgetId}`, { limits: { sessionTurns } });
    const capped = await caps(1);
    expect(capped).toAnswer(200);
    const { tab, ctx } = await chatting();
    try {
      await say(tab, 'first question');
      await tab.getByText('You said: first question').waitFor({ timeout: 15_000 });
      await say(tab, 'second question');
      await tab.getByText(/come back later/).waitFor({ timeout: 15_000 });
      expect(await tab.getByRole('button', { name: 'Retry' }).count()).toBe(0);
      expect(await messages(tab).locator('.typing').count()).toBe(0);
      await screenshot(tab, 'cap-reached');
    } finally {
      await ctx.close();
      expect(await caps(null)).toAnswer(200);
    }
  });

  it('offers a retry when the chat cannot start, then starts', { timeout: 90_000 }, async () => {
    const { tab, ctx } = await visit(shop);
    try {
      const sessions = (url: URL) => url.pathname.endsWith('/widget/sessions');
      await tab.route(sessions, (route) => route.abort('connectionrefused'));
      await bubble(tab).click();
      await tab.getByRole('button', { name: 'Retry' }).waitFor({ timeout: 15_000 });
      await tab.unroute(sessions);
      await tab.getByRole('button', { name: 'Retry' }).click();
      await tab.getByText('Welcome to the shop!').waitFor({ timeout: 15_000 });
    } finally {
      await ctx.close();
    }
  });
});
