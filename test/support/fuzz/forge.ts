import { generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { signingKey, verificationKeys } from '#shared/auth/signing-keys.ts';
import { config } from '#shared/platform/config.ts';

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

export interface Claims {
  sub: string;
  tid: string | null;
  roles: string[];
  perms: string[];
  email: string;
}

const now = () => Math.floor(Date.now() / 1000);

/** A token the API itself would issue, with chosen header and claim changes. */
async function signed(
  claims: Claims,
  opts: { iss?: string; aud?: string; exp?: number; iat?: number; kid?: string | null; key?: CryptoKey } = {},
) {
  const real = await signingKey();
  const header: Record<string, unknown> = { alg: 'ES256', typ: 'JWT' };
  if (opts.kid !== null) header.kid = opts.kid ?? real.kid;
  return new SignJWT({ tid: claims.tid, roles: claims.roles, perms: claims.perms, email: claims.email })
    .setProtectedHeader(header as { alg: string })
    .setSubject(claims.sub)
    .setIssuer(opts.iss ?? config.issuer)
    .setAudience(opts.aud ?? config.audience)
    .setJti(crypto.randomUUID())
    .setIssuedAt(opts.iat ?? now())
    .setExpirationTime(opts.exp ?? now() + 900)
    .sign(opts.key ?? real.key);
}

/**
 * Tokens that must all be refused (401) on every protected route. Each carries the claims of a
 * caller who would otherwise pass, so only the forged part can be what is refused.
 */
export async function forgedTokens(claims: Claims): Promise<{ name: string; token: string; expiredOnly?: boolean }[]> {
  const { kid } = await signingKey();
  const other = await generateKeyPair('ES256');
  const good = await signed(claims);
  const [h, p, s] = good.split('.') as [string, string, string];
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
  const jwks = (await verificationKeys()).jwks;
  const hsKey = new TextEncoder().encode(JSON.stringify(jwks.keys[0]));
  const hs256 = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', kid, typ: 'JWT' }).sign(hsKey);
  return [
    { name: 'alg none', token: `${b64({ alg: 'none', kid, typ: 'JWT' })}.${p}.` },
    { name: 'alg none (capitalised)', token: `${b64({ alg: 'None', kid, typ: 'JWT' })}.${p}.` },
    {
      name: 'signed by another key under the real kid',
      token: await signed(claims, { key: other.privateKey as CryptoKey }),
    },
    { name: 'HS256 with the public JWK as the secret', token: hs256 },
    { name: 'wrong audience', token: await signed(claims, { aud: 'another-api' }) },
    { name: 'wrong issuer', token: await signed(claims, { iss: 'https://evil.example.com' }) },
    { name: 'expired', token: await signed(claims, { iat: now() - 7200, exp: now() - 3600 }), expiredOnly: true },
    { name: 'no kid', token: await signed(claims, { kid: null }) },
    { name: 'unknown kid', token: await signed(claims, { kid: crypto.randomUUID() }) },
    {
      name: 'payload tampered (roles: SystemAdmin)',
      token: `${h}.${b64({ ...payload, roles: ['SystemAdmin'] })}.${s}`,
    },
    { name: 'signature stripped', token: `${h}.${p}.` },
    { name: 'signature of another token', token: `${h}.${p}.${(await signed(claims)).split('.')[2]}` },
    { name: 'garbage', token: 'abc.def.ghi' },
  ];
}

/** Authorization header values that are not a bearer token at all. */
export const MALFORMED_AUTHORIZATION = [
  '',
  'Bearer',
  'Bearer ',
  'Basic dXNlcjpwYXNz',
  'bearer x.y.z',
  'Token abc',
  'Bearer a.b',
  `Bearer ${'a'.repeat(9000)}.b.c`,
];
