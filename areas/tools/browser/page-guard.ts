import { loopbackTargetsAllowed } from '#shared/platform/config.ts';
import { isLoopbackAddress, publicAddressOf } from '#shared/http/address-guard.ts';

/**
 * The HTTP Request tool's address guard, for every request a page makes: https only (plain http
 * only to a loopback server of the local run), the tool's exact allowed hosts, no credentials in
 * the URL, and every address the host resolves to public (loopback too under the local switch).
 * Throws a sentence saying why a request is refused.
 */
export class Refused extends Error {}

export function checkUrl(raw: string, allowedHosts: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Refused('The url is not valid');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopbackTargetsAllowed()))
    throw new Refused(`Only https URLs are allowed (${url.protocol.replace(/:$/, '')} refused)`);
  if (url.username || url.password) throw new Refused('Credentials in the url are not allowed');
  checkHost(url.hostname, allowedHosts);
  return url;
}

const bare = (host: string) => host.toLowerCase().replace(/^\[|\]$/g, '');

export function checkHost(host: string, allowedHosts: readonly string[]) {
  if (!allowedHosts.includes(bare(host))) throw new Refused(`The host ${bare(host)} is not allowed for this tool`);
}

/** The address to connect to, resolved once and checked; plain http must land on loopback. */
export async function pinnedAddress(host: string, protocol: 'http:' | 'https:') {
  let pinned: Awaited<ReturnType<typeof publicAddressOf>>;
  try {
    pinned = await publicAddressOf(bare(host));
  } catch (err) {
    throw new Refused(err instanceof Error ? err.message : `${host} was refused`);
  }
  if (protocol === 'http:' && !isLoopbackAddress(pinned.address)) throw new Refused('Only https URLs are allowed');
  return pinned;
}
