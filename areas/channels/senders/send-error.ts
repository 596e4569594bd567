import { setTimeout as sleep } from 'node:timers/promises';
import type { ChannelType } from '../channel-types.ts';
import { holdOff, paceScale, paced, type PaceKey } from './pacing.ts';

/**
 * A send the platform refused or that did not reach it. The message names the platform, the HTTP
 * status and the platform's own error text (Slack `error`, Telegram `description`, Meta
 * `error.message`, Discord `message`, Microsoft `error_description`); never a URL (Telegram's
 * carries the bot token) or a header. `retryable`: worth another attempt (429, 5xx, network).
 */
export class ChannelSendError extends Error {
  constructor(
    readonly channelType: ChannelType,
    readonly status: number | null,
    readonly platformError: string,
    readonly retryable: boolean,
    /** The platform kept saying wait beyond what one send may wait: not the message's fault. */
    readonly rateLimited = false,
  ) {
    super(`${channelType} ${status === null ? 'unreachable' : `answered ${status}`}: ${platformError}`);
    this.name = 'ChannelSendError';
  }
}

const SEND_TIMEOUT_MS = 10_000;

export interface PlatformAnswer {
  status: number;
  body: Record<string, unknown>;
  text: string;
  headers?: Headers;
}

/**
 * How long one send may spend waiting out a platform's rate limits (the worker runs 60 s); past it the
 * send is handed back to the queue as a passing failure.
 */
const MAX_RATE_WAIT_MS = 30_000;
/** When a platform limits without saying how long (Meta): its pair limit is one message per 6 s. */
const DEFAULT_WAIT_SECONDS: Record<ChannelType, number> = { telegram: 1, slack: 1, discord: 1, whatsapp: 6, teams: 1 };
/** Meta's rate-limit codes: 130429 throughput, 131056 pair rate, 80007 the account's rate, 4 the app's. */
const META_RATE_CODES = new Set([4, 80007, 130429, 131056]);

/**
 * How long the platform asked to wait (seconds), or null when the answer is not a rate limit:
 * Telegram `parameters.retry_after`, Discord `retry_after` (fractional) with `global`, Slack and
 * Teams the `Retry-After` header, Meta its rate-limit codes (no time given).
 */
export function rateLimitOf(
  channelType: ChannelType,
  answer: { status: number; body: Record<string, unknown>; headers?: Headers },
): { seconds: number; global: boolean } | null {
  const metaCode = (answer.body.error as { code?: unknown } | undefined)?.code;
  const limited = answer.status === 429 || (channelType === 'whatsapp' && META_RATE_CODES.has(metaCode as number));
  if (!limited) return null;
  const header = Number(answer.headers?.get('retry-after'));
  const telegram = Number((answer.body.parameters as { retry_after?: unknown } | undefined)?.retry_after);
  const discord = Number(answer.body.retry_after);
  const seconds = [telegram, discord, header].find((n) => Number.isFinite(n) && n >= 0);
  return {
    seconds: Math.min(seconds ?? DEFAULT_WAIT_SECONDS[channelType], 3600),
    global: answer.body.global === true,
  };
}

/**
 * One send to a platform, paced by its buckets, waiting out its 429s (each wait is the platform's
 * `retry_after`, and holds every send of that chat) without counting them as failures; answered with
 * its status and JSON body. Network failures become ChannelSendError.
 */
export async function call(
  channelType: ChannelType,
  url: string,
  init: { method?: string; headers: Record<string, string>; body: string; pace?: PaceKey },
): Promise<PlatformAnswer> {
  let waited = 0;
  for (;;) {
    if (init.pace) await paced(init.pace);
    const answer = await callOnce(channelType, url, init);
    const limit = rateLimitOf(channelType, answer);
    if (!limit) {
      if (init.pace && channelType === 'discord') followDiscordBucket(init.pace, answer.headers);
      return answer;
    }
    const ms = init.pace ? holdOff(init.pace, limit.seconds, limit.global) : (limit.seconds * 1000) / paceScale();
    if (waited + ms > MAX_RATE_WAIT_MS)
      throw new ChannelSendError(channelType, answer.status, 'rate limited beyond the wait allowed', true, true);
    waited += ms;
    await sleep(ms);
  }
}

/** Discord's route bucket at 0 remaining: the route waits its reset-after before the next send. */
function followDiscordBucket(pace: PaceKey, headers: Headers | undefined) {
  if (headers?.get('x-ratelimit-remaining') !== '0') return;
  const after = Number(headers.get('x-ratelimit-reset-after'));
  if (Number.isFinite(after) && after > 0) holdOff(pace, after);
}

async function callOnce(
  channelType: ChannelType,
  url: string,
  init: { method?: string; headers: Record<string, string>; body: string },
): Promise<PlatformAnswer> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method ?? 'POST',
      headers: init.headers,
      body: init.body,
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    const reason = e.name === 'TimeoutError' ? 'timed out' : (e.cause?.code ?? 'network error');
    throw new ChannelSendError(channelType, null, reason, true);
  }
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's HTML error page): the status says what happened.
  }
  return { status: res.status, body, text, headers: res.headers };
}

/** A refusal carrying the platform's error text (or, without one, the HTTP status text). */
export const refused = (channelType: ChannelType, answer: PlatformAnswer, platformError: string | undefined) =>
  new ChannelSendError(
    channelType,
    answer.status,
    (platformError || `HTTP ${answer.status}`).slice(0, 500),
    answer.status === 429 || answer.status >= 500,
  );

/** Splits text at the platform's message limit, preferring a line break, then a space. */
export function chunks(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const window = rest.slice(0, max);
    const cut = Math.max(window.lastIndexOf('\n'), window.lastIndexOf(' '));
    const at = cut > max / 2 ? cut : max;
    out.push(rest.slice(0, at));
    rest = rest.slice(at).replace(/^[\n ]/, '');
  }
  out.push(rest);
  return out;
}
