import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { loopbackTargetsAllowed } from '#shared/platform/config.ts';

const v6 = (cidr: string) => ipaddr.IPv6.parseCIDR(cidr);
/** Global unicast: everything else (::/96 IPv4-compatible, ::ffff:0:0/96 as such, fc00::/7, fe80::/10, ff00::/8, 100::/64, ...) is not a host on the internet. */
const GLOBAL_UNICAST = v6('2000::/3');
/**
 * Inside 2000::/3, yet not one host on the internet: 2001::/23 is IANA's protocol block (Teredo
 * 2001::/32, whose IPv4 end is obfuscated and cannot be judged, benchmarking, AMT, ORCHID and
 * ORCHIDv2, AS112; its few anycast services are nothing a tenant calls) and the documentation
 * prefixes 2001:db8::/32 and 3fff::/20.
 */
const NOT_GLOBAL = [v6('2001::/23'), v6('2001:db8::/32'), v6('3fff::/20')];
/** Prefixes that carry an IPv4 address the packet goes to in the end: judged as that address. */
const NAT64 = v6('64:ff9b::/96');
const SIX_TO_FOUR = v6('2002::/16');

const ipv4Of = (high: number, low: number) => ipaddr.IPv4.parse([high >> 8, high & 255, low >> 8, low & 255].join('.'));

function publicIPv4(ip: ipaddr.IPv4) {
  return ip.range() === 'unicast';
}

function publicIPv6(ip: ipaddr.IPv6) {
  // A zone id only ever names a link-local or site scope.
  if (ip.zoneId) return false;
  const p = ip.parts as number[];
  if (ip.isIPv4MappedAddress()) return publicIPv4(ip.toIPv4Address());
  if (ip.match(NAT64)) return publicIPv4(ipv4Of(p[6]!, p[7]!));
  if (ip.match(SIX_TO_FOUR)) return publicIPv4(ipv4Of(p[1]!, p[2]!));
  return ip.match(GLOBAL_UNICAST) && !NOT_GLOBAL.some((range) => ip.match(range));
}

/**
 * Only addresses of one host on the internet: IPv4 public unicast (no loopback, private, link-local
 * with the 169.254.169.254 metadata service, shared, documentation or reserved range); IPv6 global
 * unicast without its special prefixes; an IPv4 address carried in IPv6 (mapped, NAT64, 6to4) as
 * that IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.parse(address);
  return ip.kind() === 'ipv4' ? publicIPv4(ip as ipaddr.IPv4) : publicIPv6(ip as ipaddr.IPv6);
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
