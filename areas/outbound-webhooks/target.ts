import { loopbackTargetsAllowed } from '#shared/platform/config.ts';
import { targetNotAllowed } from './errors.ts';

// Loaded on first use, as the HTTP tool does: ipaddr.js is only needed by a call that resolves a host.
const guard = () => import('#areas/tools/for-outbound-webhooks.ts');
const RESOLVE_MS = 2000;

/** The URL's form: https (plain http only to loopback under the local run's switch), no credentials. */
function parse(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw targetNotAllowed('not a URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopbackTargetsAllowed()))
    throw targetNotAllowed('only https URLs are allowed');
  if (url.username || url.password) throw targetNotAllowed('credentials in the URL are not allowed');
  return url;
}

/**
 * Where a delivery may connect, as the HTTP tool decides it: every address the host resolves to is
 * public (loopback only under the local run's switch), and the connection is pinned to one of them,
 * so a DNS answer cannot change between the check and the request.
 */
export async function resolveTarget(raw: string): Promise<{ url: URL; address: string; family: 4 | 6 }> {
  const url = parse(raw);
  const g = await guard();
  const pinned = await g.publicAddressOf(url.hostname);
  if (url.protocol === 'http:' && !g.isLoopbackAddress(pinned.address))
    throw targetNotAllowed('only https URLs are allowed');
  return { url, ...pinned };
}

/**
 * A subscription's URL when it is saved: its form, and the host's addresses when it resolves now (a
 * name that does not resolve yet is kept; every delivery checks again before it connects).
 */
export async function checkTarget(raw: string): Promise<string> {
  const url = parse(raw);
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<'slow'>((resolve) => {
    timer = setTimeout(() => resolve('slow'), RESOLVE_MS);
  });
  try {
    const out = await Promise.race([resolveTarget(raw).then(() => 'ok' as const), slow]);
    if (out === 'slow') return url.toString();
  } catch (err) {
    const message = err instanceof Error ? err.message : '';
    if (targetNotAllowed.is(err)) throw err;
    if (/non-public address/.test(message)) throw targetNotAllowed('it resolves to a private or reserved address');
  } finally {
    clearTimeout(timer);
  }
  return url.toString();
}
