import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/data/keys.ts';
import { hitRateLimit } from '#shared/data/rate-limit.ts';
import { ApiError } from '#shared/http/errors.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';

/**
 * A key's rpm and tpm limits, counted in the shared fixed-window counters (one atomic ADD each, so
 * every Lambda instance sees the same count). tpm counts the call's worst case at admission; the
 * settle corrects the window to the real use.
 */
const WINDOW_MS = 60_000;
const RPM = 'gk-rpm';
const TPM = 'gk-tpm';

const windowStart = (now: number) => Math.floor(now / WINDOW_MS) * WINDOW_MS;
const retryAfter = (now: number) => Math.max(1, Math.ceil((windowStart(now) + WINDOW_MS - now) / 1000));

export const rateLimitExceeded = (what: string, now: number) =>
  new ApiError(429, 'RATE_LIMITED', `Rate limit reached for ${what}; try again later`, undefined, {
    'retry-after': String(retryAfter(now)),
  });

async function addTokens(keyId: string, start: number, n: number) {
  const out = await ddb().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keys.rateLimit(TPM, keyId, start),
      UpdateExpression: 'ADD hits :n SET #ttl = if_not_exists(#ttl, :ttl)',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':n': n, ':ttl': Math.ceil((start + WINDOW_MS) / 1000) + 60 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.hits ?? 0);
}

export interface RateTicket {
  keyId: string;
  window: number;
  tokens: number;
}

/** Counts the call against the key's limits, or throws 429 rate_limit_exceeded with Retry-After. */
export async function admitRates(
  key: { id: string; rpmLimit: number | null; tpmLimit: number | null },
  worstTokens: number,
  now = Date.now(),
): Promise<RateTicket | null> {
  if (key.rpmLimit !== null) {
    const rpm = await hitRateLimit({ name: RPM, limit: key.rpmLimit, windowSeconds: 60 }, key.id, now);
    if (!rpm.allowed) throw rateLimitExceeded('requests per minute', now);
  }
  if (key.tpmLimit === null) return null;
  const start = windowStart(now);
  const total = await addTokens(key.id, start, worstTokens);
  if (total > key.tpmLimit) {
    await addTokens(key.id, start, -worstTokens);
    throw rateLimitExceeded('tokens per minute', now);
  }
  return { keyId: key.id, window: start, tokens: worstTokens };
}

/** The window gets the real use instead of the worst case (only while it is still the current one). */
export async function settleRates(ticket: RateTicket | null, usedTokens: number, now = Date.now()) {
  if (!ticket || windowStart(now) !== ticket.window || usedTokens === ticket.tokens) return;
  await addTokens(ticket.keyId, ticket.window, usedTokens - ticket.tokens);
}
