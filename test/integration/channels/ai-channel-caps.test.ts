import { beforeAll, describe, expect, it } from 'vitest';
import { AGENTS } from '#test/support/agents.ts';
import { telegramHeaders } from '#test/support/channel-signing.ts';
import { useChannelStandIn } from '#test/support/channel-stand-in.ts';
import { publishedWidget } from '#test/support/conversations.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * A connection's daily token cap per person on the platform: past it a person gets no turn, is told
 * kindly once a day, and someone else on the same connection is answered as before.
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

let seq = 5000;
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

/** A Telegram connection of the agent with these per-person limits. */
const telegramLine = (name: string, limits: Record<string, number>) =>
  invoke('POST', '/api/ai/channels', {
    token: owner,
    body: {
      type: 'telegram',
      name,
      agentId,
      secrets: { 'secret-token': SECRET, 'bot-token': '123456:telegram-bot-token-secret' },
      limits,
    },
  });

describe('a channel connection caps each person per day', () => {
  it('answers until the cap, tells the person once, stays silent after; another person is answered', async () => {
    const created = await telegramLine('capped line', { userDailyTokens: 1 });
    expect(created).toAnswer(201);
    expect(created.json.result.limits).toEqual({ userDailyTokens: 1 });
    const channelId = created.json.result.id as string;

    expect(await sendAs(channelId, 7001, 'first question')).toAnswer(200);
    expect(await sentTo(7001)).toEqual(['You said: first question']);
    expect(await sendAs(channelId, 7001, 'second question')).toAnswer(200);
    expect(await sendAs(channelId, 7001, 'third question')).toAnswer(200);
    const told = await sentTo(7001);
    expect(told).toHaveLength(2);
    expect(told[1]).toEqual(expect.stringMatching(/come back later/));

    expect(await sendAs(channelId, 7002, 'hello from someone else')).toAnswer(200);
    expect(await sentTo(7002)).toEqual(['You said: hello from someone else']);

    const stats = await invoke('GET', `${AGENTS}/${agentId}/stats`, { token: owner });
    expect(stats.json.result.capsReached).toMatchObject({ userDailyTokens: 2 });
  });
});

// Their turns run one at a time in their queue group, so the check before each turn sees every
// earlier turn's spend: the cap is passed by at most one turn.
describe('a channel person sending 20 messages at once', () => {
  it('gets one answer under a cap one turn spends, and the kind notice once', async () => {
    const created = await telegramLine('busy line', { userDailyTokens: 1 });
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
