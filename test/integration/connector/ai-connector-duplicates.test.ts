import { beforeAll, describe, expect, it } from 'vitest';
import { useChannelStandIn } from '#test/support/channel-stand-in.ts';
import {
  connect,
  discordInteraction,
  hook,
  slack,
  teams,
  telegram,
  tenantWithAgent,
  turnsOf,
  whatsapp,
  WHATSAPP_NUMBER,
} from '#test/support/channel-fixtures.ts';

/**
 * Duplicates as the platforms make them: one Slack message under several event ids (a mention is
 * both `message` and `app_mention`, and a retry storm repeats it), retries with Slack's retry
 * headers, a Telegram message re-sent under a new update id; and the bot's own messages echoed
 * back, which never start a turn. Copies go in parallel: the claim, not the order, decides.
 */
const standIn = useChannelStandIn();
let owner: string;
let agentId: string;

beforeAll(async () => {
  ({ owner, agentId } = await tenantWithAgent());
});

describe('one message, one turn, whatever the event ids', () => {
  it('Slack: eleven events of one message (channel + ts), in parallel, with retries, make one turn and one answer', async () => {
    const channelId = await connect(owner, agentId, 'slack');
    const ts = '1732700000.000200';
    const bodies = Array.from({ length: 11 }, (_, i) =>
      slack.event({ ts, channel: 'C0GENERAL', type: i % 2 ? 'app_mention' : 'message', text: '<@U0BOT> refund?' }),
    );
    const answers = await Promise.all(bodies.map((b, i) => hook('slack', channelId, b, slack.headers(b, i % 3))));
    for (const a of answers) expect(a.status, a.text).toBe(200);
    expect(turnsOf(channelId)).toHaveLength(1);
    expect(await standIn.recorded('slack')).toHaveLength(1);
    // Another message in the same channel (another ts) is its own turn.
    const other = slack.event({ channel: 'C0GENERAL', text: 'and shipping?' });
    expect(await hook('slack', channelId, other, slack.headers(other))).toAnswer(200);
    expect(turnsOf(channelId)).toHaveLength(2);
  });

  it('Slack: the same ts in another channel is another message', async () => {
    const channelId = await connect(owner, agentId, 'slack');
    const ts = '1732700000.000300';
    for (const channel of ['C0ONE', 'C0TWO']) {
      const b = slack.event({ ts, channel, text: 'hi' });
      expect(await hook('slack', channelId, b, slack.headers(b))).toAnswer(200);
    }
    expect(turnsOf(channelId)).toHaveLength(2);
  });

  it('Telegram: one message under a new update_id (webhook set again) is answered once', async () => {
    const channelId = await connect(owner, agentId, 'telegram');
    const bodies = [101, 102, 103].map((updateId) => telegram.update({ updateId: updateId + 7e6, messageId: 77 }));
    const answers = await Promise.all(bodies.map((b) => hook('telegram', channelId, b, telegram.headers())));
    for (const a of answers) expect(a.status, a.text).toBe(200);
    expect(turnsOf(channelId)).toHaveLength(1);
    // The same message id in another chat is another message.
    const other = telegram.update({ messageId: 77, chat: 4343 });
    expect(await hook('telegram', channelId, other, telegram.headers())).toAnswer(200);
    expect(turnsOf(channelId)).toHaveLength(2);
  });

  it('WhatsApp: one wamid redelivered in another notification is answered once', async () => {
    const channelId = await connect(owner, agentId, 'whatsapp');
    const id = 'wamid.HBgLMTY1MDUwNzY1MjAVAgASGBQzQUFERUQ5RjM0NjE4RjdGMjUA';
    const bodies = [whatsapp.text('16505076520', 'late?', id), whatsapp.text('16505076520', 'late?', id)];
    const answers = await Promise.all(bodies.map((b) => hook('whatsapp', channelId, b, whatsapp.headers(b))));
    for (const a of answers) expect(a.status, a.text).toBe(200);
    expect(turnsOf(channelId)).toHaveLength(1);
  });
});

describe("the bot's own messages never start a turn", () => {
  it("Slack: the bot's answer echoed back (bot_id), or posted as the bot user without bot_id, is 200 and no turn", async () => {
    const channelId = await connect(owner, agentId, 'slack');
    const withBotId = slack.event({
      text: 'Our hours are 9-5',
      user: 'U0BOT',
      bot_id: 'B0PLATFORM',
      app_id: 'A0PLATFORM',
    });
    const asBotUser = slack.event({ text: 'Our hours are 9-5', user: 'U0BOT' });
    for (const b of [withBotId, asBotUser]) {
      const res = await hook('slack', channelId, b, slack.headers(b));
      expect(res).toAnswer(200);
      expect(res.json).toEqual({ ok: true });
    }
    expect(turnsOf(channelId)).toHaveLength(0);
    expect(await standIn.recorded()).toEqual([]);
  });

  it('Telegram: a message from a bot or sent via an inline bot is no turn', async () => {
    const channelId = await connect(owner, agentId, 'telegram');
    const fromBot = telegram.update({ from: { id: 7000001, is_bot: true, first_name: 'Support' } });
    const viaBot = JSON.parse(telegram.update());
    viaBot.message.via_bot = { id: 7000001, is_bot: true, first_name: 'Support', username: 'support_bot' };
    for (const b of [fromBot, JSON.stringify(viaBot)])
      expect((await hook('telegram', channelId, b, telegram.headers())).status).toBe(200);
    expect(turnsOf(channelId)).toHaveLength(0);
  });

  it("WhatsApp: the business's own number writing (an echo) and smb_message_echoes are no turn", async () => {
    const channelId = await connect(owner, agentId, 'whatsapp');
    const ownNumber = WHATSAPP_NUMBER.display.replace(/\D/g, '');
    const own = whatsapp.text(ownNumber, 'Thanks for your order');
    const echo = whatsapp.notification(
      {
        message_echoes: [
          {
            from: ownNumber,
            to: '16505076520',
            id: 'wamid.ECHO1',
            timestamp: '1732700000',
            type: 'text',
            text: { body: 'x' },
          },
        ],
        messages: [
          { from: '16505076520', id: 'wamid.ECHO2', timestamp: '1732700000', type: 'text', text: { body: 'x' } },
        ],
      },
      'smb_message_echoes',
    );
    for (const b of [own, echo]) expect((await hook('whatsapp', channelId, b, whatsapp.headers(b))).status).toBe(200);
    expect(turnsOf(channelId)).toHaveLength(0);
  });

  it("Teams: the bot's own activity (from = recipient, or role bot) is no turn", async () => {
    const channelId = await connect(owner, agentId, 'teams');
    const bot = { id: '28:bot', name: 'Support bot' };
    const echoes = [
      teams.activity({ from: bot, recipient: bot }),
      teams.activity({ from: { id: '28:other', name: 'Bot', role: 'bot' } }),
    ];
    for (const b of echoes) expect((await hook('teams', channelId, b, teams.hmac(b))).status).toBe(200);
    expect(turnsOf(channelId)).toHaveLength(0);
  });

  it('Discord: a command from a bot user is no turn (the interaction is still answered)', async () => {
    const channelId = await connect(owner, agentId, 'discord');
    const b = discordInteraction.command({ user: { id: '1', username: 'otherbot', bot: true } });
    const res = await hook('discord', channelId, b, discordInteraction.headers(b));
    expect(res).toAnswer(200);
    expect(res.json.type).toBe(4);
    expect(turnsOf(channelId)).toHaveLength(0);
  });
});
