/**
 * Hosts of URLs that name a non-public address in some IPv6 (or IPv4-in-IPv6) spelling: compressed,
 * expanded, mixed dotted notation, IPv4-compatible (::/96), mapped, NAT64 and 6to4 carrying a
 * private IPv4, Teredo, documentation, ORCHID, a zone id. Refused where nothing connects: at
 * validation (a webhook's URL) or by the guard before the request (the HTTP Request tool).
 */
export const NON_PUBLIC_HOSTS = [
  '[::a9fe:a9fe]',
  '[::7f00:1]',
  '[::169.254.169.254]',
  '[0:0:0:0:0:0:a9fe:a9fe]',
  '[0000:0000:0000:0000:0000:0000:7f00:0001]',
  '[::ffff:169.254.169.254]',
  '[::ffff:a9fe:a9fe]',
  '[0:0:0:0:0:ffff:7f00:1]',
  '[::ffff:10.0.0.1]',
  '[64:ff9b::169.254.169.254]',
  '[64:ff9b::a00:1]',
  '[2002:a9fe:a9fe::1]',
  '[2002:7f00:1::]',
  '[2001:0:4136:e378:8000:63bf:3fff:fdd2]',
  '[2001:db8::1]',
  '[3fff::1]',
  '[2001:20::1]',
  '[fe80::1]',
  '[fe80::1%25eth0]',
  '[FD00:EC2::254]',
  '[::]',
  '[::1]',
  '[ff02::1]',
  '[100::1]',
];

/** Public addresses in the same spellings: accepted (the guard only resolves them, nothing connects). */
export const PUBLIC_HOSTS = [
  '[2606:4700:4700::1111]',
  '[2606:4700:4700:0000:0000:0000:0000:1111]',
  '[2A00:1450:4001:80B::200E]',
  '[::ffff:8.8.8.8]',
  '[64:ff9b::8.8.8.8]',
  '[2002:808:808::1]',
];
