import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '#test/support/e2e.ts';
import {
  bubble,
  DESKTOP,
  focused,
  input,
  latestConversation,
  messages,
  openShop,
  PHONE,
  screenshot,
  styleOf,
  visit,
  type Shop,
} from '#test/support/widget-page.ts';

/**
 * The embeddable widget in a real browser, as a visitor meets it on a shop's site, on a desktop and
 * on a 375 x 667 phone: drawn in the site owner's theme, silent until opened, answers streamed with
 * their sources, a hand-off to a named person, a rating, and a clean new start after it. Screenshots
 * go to test-output/.
 */
const THEME = { primaryColor: '#0f766e', title: 'Shop support', position: 'left' as const };
let shop: Shop;

beforeAll(async () => {
  shop = await openShop(THEME);
}, 120_000);
afterAll(() => shop?.close());

describe.each([
  ['desktop', DESKTOP],
  ['phone', PHONE],
])('the widget on a %s', (device, viewport) => {
  it('is themed, calls nothing before it is opened, chats, hands over to a named person and takes a rating', {
    timeout: 120_000,
  }, async () => {
    const before = (await latestConversation(shop)).length;
    const { tab, ctx, problems, apiCalls } = await visit(shop, viewport);
    try {
      // Opening the page loads the script and nothing else: no session, no conversation in the inbox.
      await bubble(tab).waitFor();
      await tab.waitForTimeout(500);
      expect(apiCalls).toEqual(['GET /api/ai/widget.js']);
      expect(await latestConversation(shop)).toHaveLength(before);
      expect(await styleOf(bubble(tab), 'backgroundColor')).toBe('rgb(15, 118, 110)');
      const box = (await bubble(tab).boundingBox())!;
      expect(box.x).toBeLessThan(viewport.width / 2);
      expect(await bubble(tab).locator('svg').count()).toBe(1);

      await bubble(tab).click();
      await tab.getByText('Welcome to the shop!').waitFor({ timeout: 15_000 });
      await expect.poll(() => focused(tab)).toBe('chat-input');
      await tab.getByRole('heading', { name: 'Shop support' }).waitFor();
      expect(await latestConversation(shop)).toHaveLength(before + 1);

      await input(tab).fill('how do **returns** work');
      const streamed = tab.waitForResponse(
        (r) => r.url().endsWith('/widget/messages') && r.request().method() === 'POST',
      );
      await tab.getByRole('button', { name: 'Send' }).click();
      expect((await streamed).headers()['content-type']).toMatch(/^text\/event-stream/);
      const answer = messages(tab).locator('.agent').filter({ hasText: 'You said:' });
      await answer.locator('strong', { hasText: 'returns' }).waitFor({ timeout: 15_000 });
      await answer.getByText('[1] Returns policy').waitFor({ timeout: 15_000 });
      expect(await answer.locator('.sources li').count()).toBe(1);

      await tab.getByRole('button', { name: 'Talk to a person' }).click();
      await tab.getByText('A person will join the conversation.').waitFor();
      const [escalated] = await latestConversation(shop, 'Escalated');
      const reply = await shop.staff.reply(escalated!.id, 'Hi, I can help with **that**.');
      expect(reply).toAnswer(201);
      const staff = messages(tab).locator('.staff');
      await staff.getByText(`${shop.staff.firstName} (team)`).waitFor({ timeout: 20_000 });
      expect(await staff.locator('strong').textContent()).toBe('that');
      expect(await styleOf(staff, 'backgroundColor')).not.toBe(await styleOf(answer, 'backgroundColor'));
      expect(await styleOf(staff, 'borderLeftColor')).toBe('rgb(15, 118, 110)');
      await screenshot(tab, `${device}-hand-off`);

      await tab.getByRole('button', { name: 'End chat' }).click();
      await tab.getByRole('button', { name: '4 of 5' }).click();
      await tab.getByText('Thank you!').waitFor();
      const closed = await until(
        () => shop.as('GET', `/api/conversations/${escalated!.id}`),
        (r) => r.json.result.status === 'Closed',
        10_000,
      );
      expect(closed.json.result).toMatchObject({ status: 'Closed', csat: 4, escalated: true });

      // After the rating a new message starts a new conversation, on a cleared panel, and is answered.
      await input(tab).fill('and exchanges?');
      await tab.getByRole('button', { name: 'Send' }).click();
      await tab.getByText('You said: and exchanges?').waitFor({ timeout: 15_000 });
      expect(await tab.getByText('Thank you!').count()).toBe(0);
      expect(await tab.getByText('A person will join the conversation.').count()).toBe(0);
      expect(await messages(tab).locator('.typing').count()).toBe(0);
      const open = await latestConversation(shop, 'Open');
      expect(open[0]!.id).not.toBe(escalated!.id);
      await screenshot(tab, `${device}-new-start`);
      expect(problems).toEqual([]);
      expect(new Set(apiCalls.map((c) => c.split(' ')[1]))).not.toContain(undefined);
    } finally {
      await ctx.close();
    }
  });
});
