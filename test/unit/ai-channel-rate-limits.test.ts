import { describe, expect, it } from 'vitest';
import { rateLimitOf } from '#areas/channels/senders/send-error.ts';

/** Each platform's 429 as it sends it, read into how long to wait (seconds) and whether the whole bot waits. */
describe('rate limits as each platform answers them', () => {
  it('Telegram: 429 with parameters.retry_after', () => {
    const body = {
      ok: false,
      error_code: 429,
      description: 'Too Many Requests: retry after 7',
      parameters: { retry_after: 7 },
    };
    expect(rateLimitOf('telegram', { status: 429, body })).toEqual({ seconds: 7, global: false });
  });

  it('Discord: 429 with fractional retry_after and global', () => {
    const body = { message: 'You are being rate limited.', retry_after: 0.347, global: true, code: 0 };
    expect(rateLimitOf('discord', { status: 429, body })).toEqual({ seconds: 0.347, global: true });
  });

  it('Slack and Teams: 429 with a Retry-After header', () => {
    const headers = new Headers({ 'retry-after': '30' });
    expect(rateLimitOf('slack', { status: 429, body: { ok: false, error: 'ratelimited' }, headers })).toEqual({
      seconds: 30,
      global: false,
    });
    expect(rateLimitOf('teams', { status: 429, body: {}, headers })?.seconds).toBe(30);
  });

  it("Meta: its rate-limit codes at HTTP 400 wait the pair limit's 6 s; other errors are not limits", () => {
    const error = (code: number) => ({ error: { message: `(#${code})`, type: 'OAuthException', code } });
    expect(rateLimitOf('whatsapp', { status: 400, body: error(131056) })).toEqual({ seconds: 6, global: false });
    expect(rateLimitOf('whatsapp', { status: 400, body: error(130429) })?.seconds).toBe(6);
    expect(rateLimitOf('whatsapp', { status: 400, body: error(131030) })).toBeNull();
    expect(rateLimitOf('telegram', { status: 400, body: { ok: false, error_code: 400 } })).toBeNull();
  });

  it('a wait without a time falls back to the default; an absurd one is capped at an hour', () => {
    expect(rateLimitOf('slack', { status: 429, body: {} })).toEqual({ seconds: 1, global: false });
    expect(rateLimitOf('telegram', { status: 429, body: { parameters: { retry_after: 99999 } } })?.seconds).toBe(3600);
  });
});
