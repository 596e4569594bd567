import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setPaceScale, setPacing } from '#areas/channels/senders/pacing.ts';
import { useChannelStandIn } from '#test/support/channel-stand-in.ts';
import { connect, tenantWithAgent, type Platform } from '#test/support/channel-fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tempDir } from '#test/support/temp-dir.ts';
import { localQueue } from '#local/local-queue.ts';
import { queueSender } from '#shared/platform/ports.ts';

/**
 * Bursts against the platforms' limits, as the stand-ins enforce them (429 with `retry_after` or
 * `Retry-After`, Meta's pair-rate error 131056). Time runs ten times faster for the pacing and the
 * stand-ins alike, so Telegram's 1 message per second per chat makes 100 messages take about ten
 * seconds. Every message ends Sent; a 429 is waited out, never recorded as the message's failure.
 */
const standIn = useChannelStandIn();
let owner: string;
let agentId: string;
const P = '/api/proactive-messages';

beforeAll(async () => {
  ({ owner, agentId } = await tenantWithAgent());
  setPaceScale(10);
});
afterEach(() => setPacing(true));
afterAll(() => setPaceScale(1));

/** The messages created at once, sent by the channel worker from an SQS-like queue (each delivery on its own). */
async function burst(type: Platform, recipient: string, count: number) {
  const channelId = await connect(owner, agentId, type);
  const original = await queueSender();
  const queue = localQueue({ dataDir: tempDir('pacing-'), maxAttempts: 3, backoffMs: 10 });
  queueSender.install(queue);
  let ms: number;
  try {
    const started = performance.now();
    const created = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        invoke('POST', P, { token: owner, body: { channelId, recipient, text: `Update ${i + 1} of ${count}` } }),
      ),
    );
    for (const c of created) expect(c.status, c.text).toBe(202);
    await queue.drain();
    ms = performance.now() - started;
    // Nothing parked: a 429 is not a failed delivery.
    expect(queue.deadLetters()).toEqual([]);
  } finally {
    queueSender.install(original);
  }
  const list = await invoke('GET', `${P}?channelId=${channelId}&pageSize=100`, { token: owner });
  const mine = (c: { body: string; url: string }) => c.body.includes(recipient) || c.url.includes(recipient);
  const calls = (await standIn.recorded(type)).filter(mine);
  return {
    ms,
    messages: list.json.result.items as { status: string; error: string | null; text: string }[],
    ok: calls.filter((c) => c.responseStatus === 200).length,
    limited: calls.filter(
      (c) => c.responseStatus === 429 || (c.response as { error?: { code?: number } }).error?.code === 131056,
    ),
  };
}

describe('a burst of proactive messages to one chat', () => {
  it('Telegram, paced: 100 messages to one chat all end Sent, at about the chat rate, no 429 left unhandled', async () => {
    const out = await burst('telegram', '5550100', 100);
    expect(out.messages).toHaveLength(100);
    expect(out.messages.filter((m) => m.status === 'Sent')).toHaveLength(100);
    expect(out.messages.every((m) => m.error === null)).toBe(true);
    expect(out.ok).toBe(100);
    // 1 per second per chat at 10x: 99 intervals of 100 ms at the least.
    expect(out.ms).toBeGreaterThan(9_000);
    // The buckets keep the burst near the limit; 429s from arrival jitter on a loaded machine (a send
    // reaches the stand-in later than its slot) are waited out. Unpaced, each of 20 draws one or more.
    expect(out.limited.length).toBeLessThan(50);
    console.info(
      `[pacing] 100 Telegram messages to one chat in ${(out.ms / 1000).toFixed(1)} s (x10), ${out.limited.length} 429s`,
    );
  }, 60_000);

  it('Telegram, unpaced: the stand-in answers 429 with retry_after; each is waited out and every message ends Sent', async () => {
    setPacing(false);
    const out = await burst('telegram', '5550101', 20);
    expect(out.limited.length).toBeGreaterThanOrEqual(10);
    console.info(`[pacing] 20 unpaced Telegram messages to one chat drew ${out.limited.length} 429s`);
    const first = out.limited[0]!.response as { error_code: number; parameters: { retry_after: number } };
    expect(first.error_code).toBe(429);
    expect(first.parameters.retry_after).toBeGreaterThanOrEqual(1);
    expect(out.messages.filter((m) => m.status === 'Sent')).toHaveLength(20);
    expect(out.ok).toBe(20);
  }, 60_000);

  it('Slack, unpaced: 429 with a Retry-After header is honoured; all sent', async () => {
    setPacing(false);
    const out = await burst('slack', 'C0BURST', 8);
    expect(out.limited.length).toBeGreaterThan(0);
    expect(out.messages.filter((m) => m.status === 'Sent')).toHaveLength(8);
  }, 60_000);

  it('Discord, unpaced: 429 with retry_after (fractional seconds) and the X-RateLimit headers is honoured; all sent', async () => {
    setPacing(false);
    const out = await burst('discord', '1122334455667788', 40);
    expect(out.limited.length).toBeGreaterThan(0);
    expect(out.limited[0]!.response).toMatchObject({ message: 'You are being rate limited.', global: false });
    expect(out.messages.filter((m) => m.status === 'Sent')).toHaveLength(40);
  }, 60_000);
});
