import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { loopbackTargetsAllowed } from '#shared/platform/config.ts';

/**
 * Only public unicast addresses: loopback, private, link-local (the 169.254.169.254 metadata
 * service), unique-local (fd00:ec2::254), IPv4-mapped and every other special range are refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) return false;
  return ip.range() === 'unicast';
}

/** 127.0.0.0/8 and ::1 (not IPv4-mapped forms, not any other special range). */
export const isLoopbackAddress = (address: string) =>
  ipaddr.isValid(address) && ipaddr.parse(address).range() === 'loopback';

/** Where an outbound call may connect: public unicast, and loopback under the local run's switch. */
export const isAllowedTarget = (address: string) =>
  isPublicAddress(address) || (loopbackTargetsAllowed() && isLoopbackAddress(address));

/** The host's addresses, resolved here so the connection can be pinned to one that was checked. */
export async function publicAddressOf(host: string): Promise<{ address: string; family: 4 | 6 }> {
  const bare = host.replace(/^\[|\]$/g, '');
  const found = ipaddr.isValid(bare)
    ? [{ address: bare, family: ipaddr.parse(bare).kind() === 'ipv6' ? 6 : 4 }]
    : await lookup(bare, { all: true, verbatim: true });
  if (!found.length) throw new Error(`${host} does not resolve`);
  // Every address must be allowed: a name that also resolves privately is refused as a whole.
  const bad = found.find((a) => !isAllowedTarget(a.address));
  if (bad) throw new Error(`${host} resolves to a non-public address (${bad.address}); refused`);
  const first = found[0] as { address: string; family: number };
  return { address: first.address, family: first.family as 4 | 6 };
}
