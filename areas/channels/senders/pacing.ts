import { setTimeout as sleep } from 'node:timers/promises';
import type { ChannelType } from '../channel-types.ts';

/**
 * Outbound pacing per platform: a token bucket per bot (the connection) and one per chat, at each
 * platform's documented rate, so a burst of sends queues up here instead of drawing 429s. The
 * buckets live in the sending process (a Lambda container): containers running in parallel each
 * keep their own, so the platform's 429 with its `retry_after` stays the net (see `call`), and its
 * wait pushes the bucket forward for every send sharing it.
 *
 * Rates (requests per second, burst):
 * - Telegram: 1/s per chat, 30/s per bot (core.telegram.org/bots/faq);
 * - Slack: chat.postMessage about 1/s per channel, bursts tolerated; the workspace's Web API tier ~50/min
 *   for most methods but postMessage is "special": the per-channel rule binds;
 * - Discord: 5 per 5 s per channel route, 50/s global; the answer's X-RateLimit-* headers adjust the
 *   route bucket (a route at 0 remaining waits its reset-after);
 * - WhatsApp: 80 messages/s per business number; 1 per 6 s to one person, bursts up to 45 (Meta's
 *   pair rate limit, error 131056);
 * - Teams: 7 per second per conversation (8 per 2 s, 60 per 30 s), 50/s per bot.
 */
export interface Rate {
  perSecond: number;
  burst: number;
}

export const PLATFORM_RATES: Record<ChannelType, { bot: Rate; chat: Rate }> = {
  telegram: { bot: { perSecond: 30, burst: 30 }, chat: { perSecond: 1, burst: 1 } },
  slack: { bot: { perSecond: 20, burst: 20 }, chat: { perSecond: 1, burst: 2 } },
  discord: { bot: { perSecond: 50, burst: 50 }, chat: { perSecond: 1, burst: 5 } },
  whatsapp: { bot: { perSecond: 80, burst: 80 }, chat: { perSecond: 1 / 6, burst: 45 } },
  teams: { bot: { perSecond: 50, burst: 50 }, chat: { perSecond: 2, burst: 7 } },
};

/** Who a send is paced as: the connection (the bot) and the chat it goes to. */
export interface PaceKey {
  platform: ChannelType;
  bot: string;
  chat: string;
}

/**
 * Time runs this many times faster for pacing and for platform waits (tests and the local
 * stand-ins, so a burst of 100 at 1/s takes seconds); 1 everywhere else.
 */
let scale = 1;
export const setPaceScale = (k: number) => {
  scale = k;
  buckets.clear();
};
export const paceScale = () => scale;
let enabled = true;
/** Pacing off (tests proving the 429 path alone carries a burst through). */
export const setPacing = (on: boolean) => {
  enabled = on;
  buckets.clear();
};

/**
 * Generic cell rate: `tat` is when the bucket is next empty; a send may go once `tat - tolerance` has
 * passed, and each send moves `tat` one interval on. Reserving at once keeps concurrent sends in order.
 */
const buckets = new Map<string, number>();
/** Beyond this many buckets the oldest go (a process serving many chats keeps memory bounded). */
const MAX_BUCKETS = 10_000;

function reserve(key: string, rate: Rate, now: number): number {
  const interval = 1000 / rate.perSecond / scale;
  const tolerance = (rate.burst - 1) * interval;
  const tat = Math.max(buckets.get(key) ?? now, now);
  const wait = Math.max(0, tat - tolerance - now);
  buckets.delete(key);
  buckets.set(key, tat + interval);
  if (buckets.size > MAX_BUCKETS) buckets.delete(buckets.keys().next().value as string);
  return wait;
}

const botKey = (k: PaceKey) => `${k.platform}:${k.bot}`;
const chatKey = (k: PaceKey) => `${k.platform}:${k.bot}:${k.chat}`;

/** Waits until both the bot's and the chat's buckets allow one more send, and takes it. */
export async function paced(key: PaceKey): Promise<void> {
  if (!enabled) return;
  const rates = PLATFORM_RATES[key.platform];
  const now = Date.now();
  const wait = Math.max(reserve(chatKey(key), rates.chat, now), reserve(botKey(key), rates.bot, now));
  if (wait > 0) await sleep(wait);
}

/**
 * The platform said wait (`retry_after`, `Retry-After`, a route at 0 remaining): nothing on this chat
 * (or, for a global limit, this bot) goes before then. `seconds` are the platform's.
 */
export function holdOff(key: PaceKey, seconds: number, global = false): number {
  const ms = (seconds * 1000) / scale;
  const rate = global ? PLATFORM_RATES[key.platform].bot : PLATFORM_RATES[key.platform].chat;
  // The bucket's burst must not let the next sends through before the platform's time.
  const tolerance = ((rate.burst - 1) * 1000) / rate.perSecond / scale;
  const k = global ? botKey(key) : chatKey(key);
  buckets.set(k, Math.max(buckets.get(k) ?? 0, Date.now() + ms + tolerance));
  return ms;
}
