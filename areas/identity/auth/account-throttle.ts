import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { epochSeconds, randomToken, sha256 } from '#shared/auth/opaque.ts';
import { keys } from '#shared/data/keys.ts';
import { clearRateLimit, hitRateLimit, releaseRateLimit } from '#shared/data/rate-limit.ts';
import { rateLimited } from '#shared/http/errors.ts';
import { normalizeEmail } from '#areas/identity/users.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import type { RateLimitRule } from '#shared/routes/types.ts';
import { countMetric } from '#shared/runtime/metrics.ts';

/**
 * Per-account throttle on password sign-in ("device cookies", OWASP): after 10 wrong passwords for
 * one address within 15 minutes, from any addresses, sign-in for it is refused (429, password not
 * checked) to every client except those holding a device token of that account, which a client
 * receives on each successful sign-in. A stranger guessing from many addresses is stopped; the
 * owner on a known device is never locked out, and anyone else waits out the window or resets the
 * password (which clears it). Counted for unknown addresses alike, so it reveals nothing.
 */
export const ACCOUNT_FAILURES: RateLimitRule = { name: 'auth-account', limit: 10, windowSeconds: 15 * 60 };
const DEVICE_TTL_SECONDS = 90 * 24 * 3600;

const accountOf = (email: string) => sha256(normalizeEmail(email));
const deviceKey = (email: string, token: string) => keys.oneTime('DEVICE', `${accountOf(email)}:${sha256(token)}`);

async function knownDevice(email: string, token: string | undefined): Promise<boolean> {
  if (!token) return false;
  const out = await ddb().send(
    new GetCommand({ TableName: config.tableName, Key: deviceKey(email, token), ConsistentRead: true }),
  );
  return !!out.Item && Number(out.Item.expiresAt) > epochSeconds(Date.now());
}

/**
 * Spends one guess of the account before the password is checked (atomic, so a parallel burst
 * cannot pass the limit) and refuses with 429 once the account is over it, unless the client holds
 * a device token of the account. Returns the release to call when the password was right.
 */
export async function claimSignInAttempt(email: string, deviceToken: string | undefined): Promise<() => Promise<void>> {
  if (await knownDevice(email, deviceToken)) return async () => {};
  const claimedAt = Date.now();
  const outcome = await hitRateLimit(ACCOUNT_FAILURES, accountOf(email), claimedAt);
  if (!outcome.allowed) {
    countMetric('RateLimitRefused', ACCOUNT_FAILURES.name);
    throw rateLimited(outcome.retryAfterSeconds);
  }
  // Released in the window the guess was spent in, even when the check crossed a window edge.
  return () => releaseRateLimit(ACCOUNT_FAILURES, accountOf(email), claimedAt);
}

export const clearSignInFailures = (email: string) => clearRateLimit(ACCOUNT_FAILURES, accountOf(email));

/** A new device token for the account, kept 90 days. */
export async function issueDeviceToken(email: string): Promise<string> {
  const token = randomToken();
  const expiresAt = epochSeconds(Date.now()) + DEVICE_TTL_SECONDS;
  await ddb().send(
    new PutCommand({ TableName: config.tableName, Item: { ...deviceKey(email, token), expiresAt, ttl: expiresAt } }),
  );
  return token;
}
