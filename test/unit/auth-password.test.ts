import { safeParse } from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { newPassword } from '#areas/identity/password-policy.ts';
import {
  SCRYPT_PARAMS,
  dummyHash,
  hashPassword,
  needsRehash,
  scryptParams,
  verifyPassword,
} from '#areas/identity/password.ts';

// Cheap parameters for most cases; one test proves the production setting.
const FAST = { N: 2 ** 11, r: 8, p: 1 } as const;

describe('password hashing', () => {
  it('stores scheme, the OWASP scrypt parameters, salt and key, and verifies', async () => {
    const hash = await hashPassword('Sturdy-Pass-42', scryptParams({}));
    const [scheme, n, r, p, salt, key] = hash.split('$');
    expect([scheme, Number(n), Number(r), Number(p)]).toEqual(['scrypt', 2 ** 17, 8, 1]);
    expect(Buffer.from(salt!, 'base64url')).toHaveLength(16);
    expect(Buffer.from(key!, 'base64url')).toHaveLength(32);
    expect(await verifyPassword('Sturdy-Pass-42', hash)).toBe(true);
    expect(await verifyPassword('Sturdy-Pass-43', hash)).toBe(false);
    expect(needsRehash(hash)).toBe(false);
  });

  it('hashes at the cost the test tiers name, and nowhere below 2^10', async () => {
    expect(scryptParams({})).toEqual({ N: 2 ** 17, r: 8, p: 1 });
    expect(scryptParams({ SCRYPT_TEST_LOG2_N: '12' })).toEqual({ N: 2 ** 12, r: 8, p: 1 });
    for (const bad of ['9', '18', '12.5', 'twelve'])
      expect(() => scryptParams({ SCRYPT_TEST_LOG2_N: bad })).toThrow(/SCRYPT_TEST_LOG2_N/);
    // vitest.config.ts sets 12: the default hash of the test tiers is cheap.
    expect((await hashPassword('Sturdy-Pass-42')).split('$')[1]).toBe(String(2 ** 12));
  });

  it('salts every hash and verifies with the parameters stored in the hash', async () => {
    const [a, b] = await Promise.all([hashPassword('same', FAST), hashPassword('same', FAST)]);
    expect(a).not.toBe(b);
    expect(await verifyPassword('same', a)).toBe(true);
    expect(needsRehash(a)).toBe(true);
    expect(SCRYPT_PARAMS).toEqual({ N: 2 ** 17, r: 8, p: 1 });
  });

  it('normalizes Unicode before hashing and rejects malformed stored values', async () => {
    const hash = await hashPassword('caf\u00e9-Pass1', FAST);
    expect(await verifyPassword('cafe\u0301-Pass1', hash)).toBe(true);
    expect(await verifyPassword('x', 'bcrypt$whatever')).toBe(false);
    expect(await verifyPassword('x', '')).toBe(false);
  });

  it('offers a dummy hash (same cost as a real one) that no password matches', async () => {
    const dummy = await dummyHash();
    expect(dummy.split('$')[1]).toBe(String(scryptParams().N));
    expect(await dummyHash()).toBe(dummy);
    expect(await verifyPassword('', dummy)).toBe(false);
  });
});

describe('password policy', () => {
  it.each([
    ['Sturdy-Pass-42', true],
    ['Abcdefg1', true],
    ['Abcdef1', false],
    ['abcdefg1', false],
    ['ABCDEFG1', false],
    ['Abcdefgh', false],
    [`Aa1${'x'.repeat(253)}`, true],
    [`Aa1${'x'.repeat(254)}`, false],
  ])('%s -> %s', (value, valid) => {
    expect(safeParse(newPassword(), value).success).toBe(valid);
  });
});
