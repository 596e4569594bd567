import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
 * The widget for every visitor: reachable and closable from the keyboard, announced to screen
 * readers, no serious or critical axe-core finding, a full-screen panel on a phone that follows the
 * on-screen keyboard, and answers that wrap and render only a safe Markdown subset.
 */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let shop: Shop;

beforeAll(async () => {
  shop = await openShop();
}, 120_000);
afterAll(() => shop?.close());

/** Serious and critical axe-core findings in the page (the widget's shadow root included). */
async function axeFindings(tab: Awaited<ReturnType<typeof visit>>['tab']) {
  await tab.addScriptTag({ path: AXE });
  const found = (await tab.evaluate(
    'axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")) })))',
  )) as { id: string; impact: string; nodes: string[] }[];
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

const XSS =
  '**Bold** and a list:\n- one\n- two\n\n1. first\n' +
  '[docs](https://example.com/docs) <img src=x onerror="window.__xss=1"> [bad](javascript:window.__xss=2) <script>window.__xss=3</script>\n' +
  `https://example.com/${'a'.repeat(200)}\nSupercalifragilistic${'x'.repeat(150)}`;

describe.each([
  ['desktop', DESKTOP],
  ['phone', PHONE],
])('the widget on a %s', (device, viewport) => {
  it('opens and closes from the keyboard, is announced, and passes axe-core', { timeout: 90_000 }, async () => {
    const { tab, ctx, problems } = await visit(shop, viewport);
    try {
      await bubble(tab).focus();
      expect(await bubble(tab).getAttribute('aria-expanded')).toBe('false');
      await tab.keyboard.press('Enter');
      await tab.getByText('Welcome to the shop!').waitFor({ timeout: 15_000 });
      // On a phone the open panel covers the bubble (hidden, so out of the accessibility tree).
      expect(await tab.locator('button.bubble').getAttribute('aria-expanded')).toBe('true');
      expect(await focused(tab)).toBe('chat-input');
      expect(await messages(tab).getAttribute('aria-live')).toBe('polite');
      expect(await styleOf(input(tab), 'fontSize')).toBe('16px');
      await input(tab).fill('hello there');
      await tab.keyboard.press('Enter');
      await tab.getByText('You said: hello there').waitFor({ timeout: 15_000 });
      expect(await axeFindings(tab)).toEqual([]);
      await screenshot(tab, `${device}-open`);

      await tab.keyboard.press('Escape');
      expect(await bubble(tab).getAttribute('aria-expanded')).toBe('false');
      expect(await focused(tab)).toBe('Open chat');
      expect(await tab.getByRole('dialog').count()).toBe(0);
      expect(await axeFindings(tab)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await ctx.close();
    }
  });

  it('renders a safe Markdown subset that wraps, and nothing else', { timeout: 90_000 }, async () => {
    const { tab, ctx } = await visit(shop, viewport);
    try {
      await bubble(tab).click();
      await tab.getByText('Welcome to the shop!').waitFor({ timeout: 15_000 });
      await input(tab).fill('<img src=x onerror="window.__xss=4"> **hi**');
      await input(tab).press('Enter');
      const echo = messages(tab).locator('.agent', { hasText: 'You said' });
      await echo.locator('strong', { hasText: 'hi' }).waitFor({ timeout: 15_000 });
      const [conversation] = await latestConversation(shop);
      expect(await shop.staff.reply(conversation!.id, XSS)).toAnswer(201);
      const staff = messages(tab).locator('.staff');
      await staff.locator('strong', { hasText: 'Bold' }).waitFor({ timeout: 20_000 });

      expect(await staff.locator('ul > li').allTextContents()).toEqual(['one', 'two']);
      expect(await staff.locator('ol > li').allTextContents()).toEqual(['first']);
      const docs = staff.getByRole('link', { name: 'docs' });
      expect(await docs.getAttribute('href')).toBe('https://example.com/docs');
      expect(await docs.getAttribute('target')).toBe('_blank');
      expect(await docs.getAttribute('rel')).toEqual(expect.stringMatching(/\bnoopener\b/));
      expect(await staff.getByRole('link', { name: 'bad' }).count()).toBe(0);
      expect(await staff.getByText('<img src=x onerror="window.__xss=1">', { exact: false }).count()).toBe(1);
      expect(await messages(tab).locator('img, script').count()).toBe(0);
      expect(await tab.evaluate('window.__xss')).toBeUndefined();
      // Long words and URLs wrap inside the panel: nothing scrolls sideways.
      const overflow = await messages(tab).evaluate((log) => [log.scrollWidth, log.clientWidth]);
      expect(overflow[0]).toBeLessThanOrEqual(overflow[1]!);
      await screenshot(tab, `${device}-markdown`);
    } finally {
      await ctx.close();
    }
  });
});

describe('the widget on a phone', () => {
  it('covers the screen and follows the on-screen keyboard', { timeout: 90_000 }, async () => {
    const ctx = await shop.browser.newContext({ viewport: PHONE, hasTouch: true });
    // A keyboard shrinks the visual viewport only: stood in for by a visualViewport the test resizes.
    await ctx.addInitScript(`{
      const vv = new EventTarget();
      vv.width = 375; vv.height = 667; vv.offsetTop = 0;
      Object.defineProperty(window, 'visualViewport', { get: () => vv });
      window.__keyboard = (height) => { vv.height = height; vv.dispatchEvent(new Event('resize')); };
    }`);
    const { tab } = await visit(shop, PHONE, ctx);
    try {
      await bubble(tab).click();
      await tab.getByText('Welcome to the shop!').waitFor({ timeout: 15_000 });
      const panel = tab.getByRole('dialog');
      expect(await panel.boundingBox()).toEqual({ x: 0, y: 0, width: 375, height: 667 });
      await input(tab).focus();
      await tab.evaluate('window.__keyboard(367)');
      await expect.poll(async () => (await panel.boundingBox())?.height).toBe(367);
      const field = (await input(tab).boundingBox())!;
      expect(field.y + field.height).toBeLessThanOrEqual(367);
      await screenshot(tab, 'phone-keyboard');
    } finally {
      await ctx.close();
    }
  });
});
