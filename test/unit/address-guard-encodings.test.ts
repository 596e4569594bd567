import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkTarget } from '#areas/outbound-webhooks/target.ts';
import { pinnedAddress, Refused } from '#areas/tools/browser/page-guard.ts';
import { isPublicAddress } from '#shared/http/address-guard.ts';
import { outboundUrl, pinTarget, TargetRefused } from '#shared/http/pinned-request.ts';
import { NON_PUBLIC_HOSTS, PUBLIC_HOSTS } from '#test/support/address-encodings.ts';

/**
 * Every spelling of an address is judged as the address it names: the HTTP Request tool's step
 * before it connects (pinTarget, also the Browser Action's proxy and the database tools' guard)
 * and a webhook subscription's URL when it is saved. Nothing here connects.
 */
afterEach(() => vi.unstubAllEnvs());

const pin = async (url: string) => pinTarget(outboundUrl(url));

describe('the address guard over IPv6 encodings', () => {
  it.each(NON_PUBLIC_HOSTS)('the HTTP Request tool refuses https://%s before connecting', async (host) => {
    vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '0');
    await expect(pin(`https://${host}/latest/meta-data`)).rejects.toThrow(TargetRefused);
  });

  it.each(NON_PUBLIC_HOSTS)('a webhook URL https://%s is refused as TARGET_NOT_ALLOWED', async (host) => {
    vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '0');
    await expect(checkTarget(`https://${host}/hook`)).rejects.toMatchObject({
      status: 400,
      code: 'TARGET_NOT_ALLOWED',
    });
  });

  // The proxy takes a CONNECT's host as sent; a zone id never reaches it inside a URL Chromium parsed.
  it.each(NON_PUBLIC_HOSTS.filter((h) => !h.includes('%')))(
    "the Browser Action's proxy refuses CONNECT %s",
    async (host) => {
      vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '0');
      await expect(pinnedAddress(host, 'https:')).rejects.toThrow(Refused);
    },
  );

  it.each(PUBLIC_HOSTS)('accepts the public https://%s', async (host) => {
    const pinned = await pin(`https://${host}/`);
    expect(isPublicAddress(pinned.address)).toBe(true);
    await expect(checkTarget(`https://${host}/hook`)).resolves.toMatch(/^https:\/\/\[/);
  });

  it('classifies the mapped form as its IPv4 address and refuses a zone id', () => {
    expect(isPublicAddress('::ffff:8.8.8.8')).toBe(true);
    expect(isPublicAddress('::ffff:127.0.0.1')).toBe(false);
    expect(isPublicAddress('::a9fe:a9fe')).toBe(false);
    expect(isPublicAddress('2606:4700::1111%eth0')).toBe(false);
  });
});
