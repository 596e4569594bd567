import type { ChannelType } from '../channel-types.ts';

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
}

/** One HTTP call to a platform, answered with its status and JSON body; network failures become ChannelSendError. */
export async function call(
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
  return { status: res.status, body, text };
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
