import { epochSeconds, randomToken, sha256 } from '#shared/auth/opaque.ts';
import { putItem } from '#shared/data/commit.ts';
import { clearRateLimit, spendRateLimit, releaseRateLimit } from '#shared/data/rate-limit.ts';
import { get } from '#shared/data/read.ts';
import type { RateLimitRule } from '#shared/routes/types.ts';
import { identityKeys, normalizeEmail } from '#areas/identity/records.ts';
import { writeOne } from '#shared/data/write-one.ts';

/**
 * Per-account throttle on password sign-in ("device cookies", OWASP): after 10 wrong passwords for
 * one address within 15 minutes, from any addresses, sign-in for it is refused (429, password not
 * checked) to every client except those holding a device token of that account, which a client
 * receives on each successful sign-in. A stranger guessing from many addresses is stopped; the
 * owner on a known device is never locked out, and anyone else waits out the window or resets the
 * password (which clears it). Counted for unknown addresses alike, so it reveals nothing.
 */
const ACCOUNT_FAILURES: RateLimitRule = { name: 'auth-account', limit: 10, windowSeconds: 15 * 60 };
const DEVICE_TTL_SECONDS = 90 * 24 * 3600;

const accountOf = (email: string) => sha256(normalizeEmail(email));
const deviceKey = (email: string, token: string) =>
  identityKeys.oneTime('DEVICE', `${accountOf(email)}:${sha256(token)}`);

async function knownDevice(email: string, token: string | undefined): Promise<boolean> {
  if (!token) return false;
  const device = await get<{ expiresAt?: number }>(deviceKey(email, token), { consistent: true });
  return !!device && Number(device.expiresAt) > epochSeconds(Date.now());
}

/**
 * Spends one guess of the account before the password is checked (atomic, so a parallel burst
 * cannot pass the limit) and refuses with 429 once the account is over it, unless the client holds
 * a device token of the account. Returns the release to call when the password was right.
 */
export async function claimSignInAttempt(email: string, deviceToken: string | undefined): Promise<() => Promise<void>> {
  if (await knownDevice(email, deviceToken)) return async () => {};
  const claimedAt = Date.now();
  await spendRateLimit(ACCOUNT_FAILURES, accountOf(email), claimedAt);
  // Released in the window the guess was spent in, even when the check crossed a window edge.
  return () => releaseRateLimit(ACCOUNT_FAILURES, accountOf(email), claimedAt);
}

export const clearSignInFailures = (email: string) => clearRateLimit(ACCOUNT_FAILURES, accountOf(email));

/** A new device token for the account, kept 90 days. */
export async function issueDeviceToken(email: string): Promise<string> {
  const token = randomToken();
  const expiresAt = epochSeconds(Date.now()) + DEVICE_TTL_SECONDS;
  await writeOne(putItem({ ...deviceKey(email, token), expiresAt, ttl: expiresAt }));
  return token;
}
