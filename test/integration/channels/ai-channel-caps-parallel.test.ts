import { beforeAll, describe, expect, it } from 'vitest';
import { telegramHeaders } from '#test/support/channel-signing.ts';
import { useChannelStandIn } from '#test/support/channel-stand-in.ts';
import { publishedWidget } from '#test/support/conversations.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * A person's daily cap on a channel under 20 messages at once: their turns run one at a time in
 * their queue group, so the check before each turn sees every earlier turn's spend and the cap is
 * passed by at most one turn.
 */
const standIn = useChannelStandIn();
const SECRET = 'telegram_secret_token_0123456789';

let owner: string;
let agentId: string;

beforeAll(async () => {
  const t = await newTenant({ planType: 2, maxAgents: 10, maxWidgetIntegrations: 20 });
  owner = await tokenFor({ tenantId: t });
  agentId = (await publishedWidget(owner)).agentId;
});

let seq = 9000;
const update = (text: string, user: number) =>
  JSON.stringify({
    update_id: ++seq,
    message: {
      message_id: seq,
      from: { id: user, is_bot: false, first_name: 'Ada' },
      chat: { id: user, type: 'private' },
      date: Math.floor(Date.now() / 1000),
      text,
    },
  });
const sendAs = (channelId: string, user: number, text: string) =>
  invoke('POST', `/api/webhooks/telegram/${channelId}`, {
    rawBody: update(text, user),
    headers: telegramHeaders(SECRET),
    contentType: 'application/json',
  });
const sentTo = async (user: number) =>
  (await standIn.recorded('telegram'))
    .map((c) => JSON.parse(c.body) as { chat_id: string; text: string })
    .filter((b) => b.chat_id === String(user))
    .map((b) => b.text);

describe('a channel person sending 20 messages at once', () => {
  it('gets one answer under a cap one turn spends, and the kind notice once', async () => {
    const created = await invoke('POST', '/api/ai/channels', {
      token: owner,
      body: {
        type: 'telegram',
        name: 'busy line',
        agentId,
        secrets: { 'secret-token': SECRET, 'bot-token': '123456:telegram-bot-token-secret' },
        limits: { userDailyTokens: 1 },
      },
    });
    expect(created).toAnswer(201);
    const channelId = created.json.result.id as string;
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => sendAs(channelId, 8001, `question ${i}`)));
    for (const r of all) expect(r).toAnswer(200);
    await expect.poll(async () => (await sentTo(8001)).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    const told = await sentTo(8001);
    expect(told.filter((x) => x.startsWith('You said:'))).toHaveLength(1);
    expect(told.filter((x) => /come back later/.test(x))).toHaveLength(1);
  });
});
