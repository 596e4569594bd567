import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );

/** OWASP's scrypt setting (N=2^17, r=8, p=1). Stored with the hash so it can be raised later. */
export const SCRYPT_PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

/**
 * The test tiers name a cheaper cost in `SCRYPT_TEST_LOG2_N` (vitest.config.ts) so the suite does
 * not spend minutes in scrypt; the stack never sets it (an infra test checks), so production and
 * `npm start` hash at OWASP's cost. Below 2^10 is refused: a typo must not disable the hash.
 */
export function scryptParams(env: NodeJS.ProcessEnv = process.env): { N: number; r: number; p: number } {
  const log2 = env.SCRYPT_TEST_LOG2_N;
  if (!log2) return SCRYPT_PARAMS;
  const n = Number(log2);
  if (!Number.isInteger(n) || n < 10 || n > 17)
    throw new Error(`SCRYPT_TEST_LOG2_N must be an integer from 10 to 17, not ${log2}`);
  return { ...SCRYPT_PARAMS, N: 2 ** n };
}

const maxmem = (N: number, r: number) => 128 * N * r * 2;

/** `scrypt$N$r$p$salt$hash` (base64url parts). */
export async function hashPassword(password: string, params = scryptParams()): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, {
    ...params,
    maxmem: maxmem(params.N, params.r),
  });
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const N = Number(n);
  const R = Number(r);
  const actual = await scrypt(password.normalize('NFKC'), Buffer.from(salt, 'base64url'), expected.length, {
    N,
    r: R,
    p: Number(p),
    maxmem: maxmem(N, R),
  });
  return timingSafeEqual(actual, expected);
}

/** A hash of a random password: verifying against it costs the same as a real one. */
let dummy: Promise<string> | undefined;
export const dummyHash = () => (dummy ??= hashPassword(randomBytes(16).toString('hex')));

/** True when the stored hash was made with weaker parameters than today's. */
export const needsRehash = (stored: string) => {
  const [, n, r, p] = stored.split('$');
  const today = scryptParams();
  return Number(n) < today.N || Number(r) < today.r || Number(p) < today.p;
};
