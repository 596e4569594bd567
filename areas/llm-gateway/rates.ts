import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/data/keys.ts';
import { hitRateLimit, releaseRateLimit } from '#shared/data/rate-limit.ts';
import { rateLimited } from '#shared/http/errors.ts';
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

const rateLimitExceeded = (what: string, now: number) =>
  rateLimited(retryAfter(now), `Rate limit reached for ${what}; try again later`);

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
  /** The request was counted against rpm (given back only when the admission is redone). */
  rpm: boolean;
}

const RPM_RULE = (limit: number) => ({ name: RPM, limit, windowSeconds: 60 });

/**
 * Counts the call against the key's limits, or throws 429 rate_limit_exceeded with Retry-After.
 * Both counters are one atomic ADD each, sent together; a refused call gives its tokens back (its
 * request still counts, as a refused request does against any rpm limit).
 */
export async function admitRates(
  key: { id: string; rpmLimit: number | null; tpmLimit: number | null },
  worstTokens: number,
  now = Date.now(),
): Promise<RateTicket | null> {
  const start = windowStart(now);
  const [rpm, total] = await Promise.all([
    key.rpmLimit === null ? null : hitRateLimit(RPM_RULE(key.rpmLimit), key.id, now),
    key.tpmLimit === null ? null : addTokens(key.id, start, worstTokens),
  ]);
  const refused =
    rpm && !rpm.allowed ? 'requests per minute' : total !== null && total > key.tpmLimit! ? 'tokens per minute' : null;
  if (refused) {
    if (total !== null) await addTokens(key.id, start, -worstTokens);
    throw rateLimitExceeded(refused, now);
  }
  return { keyId: key.id, window: start, tokens: total === null ? 0 : worstTokens, rpm: rpm !== null };
}

/** The window gets the real use instead of the worst case (only while it is still the current one). */
export async function settleRates(ticket: RateTicket | null, usedTokens: number, now = Date.now()) {
  if (!ticket?.tokens || windowStart(now) !== ticket.window || usedTokens === ticket.tokens) return;
  await addTokens(ticket.keyId, ticket.window, usedTokens - ticket.tokens);
}

/** Takes an admission back entirely (it is redone on fresher limits): its tokens and its request. */
export async function undoRates(ticket: RateTicket | null, now = Date.now()) {
  if (!ticket) return;
  await Promise.all([
    settleRates(ticket, 0, now),
    ticket.rpm && releaseRateLimit(RPM_RULE(1), ticket.keyId, ticket.window),
  ]);
}
