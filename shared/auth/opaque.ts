import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random opaque value: 32 bytes (256 bits) as base64url. */
export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

/** SHA-256 hex: how opaque tokens are stored and looked up (the value itself is never stored). */
export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

export const epochSeconds = (ms = Date.now()) => Math.floor(ms / 1000);
