import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPaceScale } from '#areas/channels/senders/pacing.ts';
import { localQueue } from '#local/local-queue.ts';
import { queueSender, type QueueMessage } from '#shared/platform/ports.ts';
import type { QueueName } from '#shared/routes/groups.ts';
import {
  connect,
  discordInteraction,
  hook,
  slack,
  teams,
  telegram,
  tenantWithAgent,
  whatsapp,
  type Platform,
} from '#test/support/channel-fixtures.ts';
import { useChannelStandIn } from '#test/support/channel-stand-in.ts';
import { publishedWidget, session } from '#test/support/conversations.ts';
import { ip } from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { sentMessages, testQueue } from '#test/support/test-ports.ts';

/**
 * One person writing several messages close together, as a fuzzer and curl found them lost: every
 * message the webhook accepts is stored once and answered once, in the order it was accepted, however
 * many arrive at once. The queues here are the local run's (asynchronous, retried, in order per
 * group as SQS FIFO delivers), not the tests' synchronous delivery, so turns really run side by side.
 */
const standIn = useChannelStandIn();
let owner: string;
let agentId: string;
let widgetKey: string;
let queue: ReturnType<typeof localQueue>;

beforeAll(async () => {
  ({ owner, agentId, widgetKey } = await tenantWithAgent());
  setPaceScale(200);
  queue = localQueue({ dataDir: mkdtempSync(join(tmpdir(), 'bursts-')), maxAttempts: 5, backoffMs: 20 });
  // What the webhooks queued, in the order the queue took it (the order each conversation must keep).
  queueSender.install({
    send: (name: QueueName, message: QueueMessage, opts) => {
      sentMessages.push({ queue: name, message });
      return queue.send(name, message, opts);
    },
  });
});

afterAll(() => {
  setPaceScale(1);
  queueSender.install(testQueue);
});

/** One message from the same person on each platform, signed as the platform signs it. */
const MESSAGE: Record<Platform, (text: string) => [string, Record<string, string>]> = {
  telegram: (text) => {
    const b = telegram.update({ text });
    return [b, telegram.headers()];
  },
  slack: (text) => {
    const b = slack.event({ text });
    return [b, slack.headers(b)];
  },
  whatsapp: (text) => {
    const b = whatsapp.text('16505076520', text);
    return [b, whatsapp.headers(b)];
  },
  teams: (text) => {
    const b = teams.activity({ text });
    return [b, teams.hmac(b)];
  },
  discord: (text) => {
    const b = discordInteraction.command({ text });
    return [b, discordInteraction.headers(b)];
  },
};

const texts = (run: string) =>
  Array.from({ length: 20 }, (_, i) => `burst ${run} message ${String(i).padStart(2, '0')}`);

async function inBatches<T>(items: T[], size: number, send: (item: T) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(send));
}

async function transcript(conversationId: string) {
  const res = await invoke('GET', `/api/conversations/${conversationId}`, { token: owner });
  expect(res).toAnswer(200);
  return res.json.result.messages as { role: string; text: string }[];
}

/** Every visitor message followed by its own answer, in `order`, nothing else and nothing twice. */
function expectAnsweredInOrder(messages: { role: string; text: string }[], order: string[]) {
  const shown = messages.filter((m) => m.role !== 'system');
  expect(
    shown.map((m) => `${m.role}: ${m.text}`),
    JSON.stringify(messages, null, 1),
  ).toEqual(order.flatMap((t) => [`visitor: ${t}`, `agent: You said: ${t}`]));
}

const turnTexts = (channelId: string) =>
  sentMessages
    .filter((m) => m.queue === 'turns' && m.message.payload.channelId === channelId)
    .map((m) => m.message.payload.text as string);

describe('a burst from one person on a channel: every message stored and answered once, in order', () => {
  for (const platform of Object.keys(MESSAGE) as Platform[])
    for (const atOnce of [1, 10])
      it(`${platform}: 20 messages, ${atOnce} at a time`, async () => {
        const channelId = await connect(owner, agentId, platform);
        const run = `${platform}-${atOnce}`;
        const since = new Date().toISOString();
        await inBatches(texts(run), atOnce, async (text) => {
          const [body, headers] = MESSAGE[platform](text);
          const res = await hook(platform, channelId, body, headers);
          expect(res).toAnswer(200);
        });
        await queue.drain();
        expect(queue.deadLetters()).toEqual([]);
        const accepted = turnTexts(channelId);
        expect([...accepted].sort()).toEqual(texts(run));

        const list = await invoke('GET', '/api/conversations', { token: owner, query: { channel: platform } });
        // Each run has its own connection, so the person's conversation is the one started since.
        const mine = list.json.result.items.filter((c: { startedAt: string }) => c.startedAt >= since);
        expect(mine, list.text).toHaveLength(1);
        expectAnsweredInOrder(await transcript(mine[0].id), accepted);

        // Sent to the platform once each, in the same order.
        const sent = (await standIn.recorded(platform)).filter((c) => c.body.includes(`burst ${run} `));
        const answerOf = (body: string) => accepted.find((t) => body.includes(`You said: ${t}`));
        expect(sent.map((c) => answerOf(c.body))).toEqual(accepted);
      });
});

describe('a burst from one visitor on the widget: every message stored and answered once, in order', () => {
  for (const atOnce of [1, 10])
    it(`20 messages, ${atOnce} at a time`, async () => {
      const s = await session(widgetKey);
      const order: string[] = [];
      await inBatches(texts(`widget-${atOnce}`), atOnce, async (text) => {
        const res = await s.send(text);
        expect(res).toAnswer(200);
        expect(res.json.result.message.text).toBe(`You said: ${text}`);
        order.push(text);
      });
      const messages = await transcript(s.conversationId);
      const stored = messages.filter((m) => m.role === 'visitor').map((m) => m.text);
      expect([...stored].sort()).toEqual(texts(`widget-${atOnce}`));
      expectAnsweredInOrder(messages, stored);
    });
});

describe('a message not answered gives its claim back, so the platform redelivering it is answered', () => {
  it('Telegram: an update refused while the connection is inactive is taken on redelivery once it is active', async () => {
    const channelId = await connect(owner, agentId, 'telegram');
    const set = (isActive: boolean) =>
      invoke('PUT', `/api/ai/channels/${channelId}`, { token: owner, body: { isActive } });
    expect(await set(false)).toAnswer(200);
    const [body, headers] = MESSAGE.telegram('burst redelivered while inactive');
    expect(await hook('telegram', channelId, body, headers)).toAnswer(200);
    await queue.drain();
    expect(turnTexts(channelId)).toEqual([]);

    expect(await set(true)).toAnswer(200);
    expect(await hook('telegram', channelId, body, headers)).toAnswer(200);
    await queue.drain();
    expect(turnTexts(channelId)).toEqual(['burst redelivered while inactive']);
    const sent = await standIn.recorded('telegram');
    expect(sent.filter((c) => c.body.includes('You said: burst redelivered while inactive'))).toHaveLength(1);
  });

  it('Slack: a turn whose model fails on every receive is parked and its claim given back; the redelivery is answered once the model is back', async () => {
    const admin = await tokenFor({ role: 'SystemAdmin' });
    const modelId = crypto.randomUUID();
    const model = (providerModel: string) =>
      invoke('PUT', `/api/llm-gateway/models/${modelId}`, {
        token: admin,
        ip: ip(),
        body: {
          name: `bursty-${modelId.slice(0, 8)}`,
          provider: 'local',
          providerModel,
          kind: 'chat',
          inputPricePerMillion: 1,
          outputPricePerMillion: 1,
          contextWindow: 10_000,
        },
      });
    expect(await model('flaky')).toAnswer(201);
    const { agentId: downAgent } = await publishedWidget(owner, { modelId });
    const channelId = await connect(owner, downAgent, 'slack');
    const [body, headers] = MESSAGE.slack('burst parked then redelivered');
    expect(await hook('slack', channelId, body, headers)).toAnswer(200);
    await queue.drain();
    const parked = queue.deadLetters().filter((d) => d.body.includes(channelId));
    expect(parked).toHaveLength(1);

    expect(await model('echo')).toAnswer(200);
    expect(await hook('slack', channelId, body, slack.headers(body, 1))).toAnswer(200);
    await queue.drain();
    expect(turnTexts(channelId)).toEqual(['burst parked then redelivered', 'burst parked then redelivered']);
    const list = await invoke('GET', '/api/conversations', { token: owner, query: { agentId: downAgent } });
    const messages = await transcript(list.json.result.items[0].id);
    // Stored once; each failed receive left its note; the redelivery's answer follows.
    expect(messages.filter((m) => m.role === 'visitor').map((m) => m.text)).toEqual(['burst parked then redelivered']);
    expect(messages.at(-1)).toMatchObject({ role: 'agent', text: 'You said: burst parked then redelivered' });
  });
});

describe('turns that fail side by side each leave their note', () => {
  it('widget: 10 messages at once to an agent whose model is down: each 503, each stored with its note after it', async () => {
    const admin = await tokenFor({ role: 'SystemAdmin' });
    const modelId = crypto.randomUUID();
    const put = await invoke('PUT', `/api/llm-gateway/models/${modelId}`, {
      token: admin,
      ip: ip(),
      body: {
        name: `down-${modelId.slice(0, 8)}`,
        provider: 'local',
        providerModel: 'flaky',
        kind: 'chat',
        inputPricePerMillion: 1,
        outputPricePerMillion: 1,
        contextWindow: 10_000,
      },
    });
    expect(put).toAnswer(201);
    const down = await publishedWidget(owner, { modelId });
    const s = await session(down.widgetKey);
    const all = texts('failing').slice(0, 10);
    const answers = await Promise.all(all.map((t) => s.send(t)));
    for (const a of answers) expect([a.status, a.json.error?.code], a.text).toEqual([503, 'AGENT_UNAVAILABLE']);
    const messages = await transcript(s.conversationId);
    const visitors = messages.filter((m) => m.role === 'visitor').map((m) => m.text);
    expect([...visitors].sort()).toEqual(all);
    expect(
      messages.map((m) => m.role),
      JSON.stringify(messages, null, 1),
    ).toEqual(visitors.flatMap(() => ['visitor', 'system']));
  });
});
