import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/data/keys.ts';
import { rateLimited } from '#shared/http/errors.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { refusedBy } from './refusal-memory.ts';

/**
 * A key's rpm and tpm limits, counted in one fixed-window item per key and minute (`requests` and
 * `tokens`, one atomic ADD for both, so every Lambda instance sees the same counts and admission
 * spends one round trip on them, not two). tpm counts the call's worst case at admission; the
 * settle corrects the window to the real use.
 */
const WINDOW_MS = 60_000;
const RATE = 'gk-rate';

const windowStart = (now: number) => Math.floor(now / WINDOW_MS) * WINDOW_MS;
const retryAfter = (now: number) => Math.max(1, Math.ceil((windowStart(now) + WINDOW_MS - now) / 1000));

const rateLimitExceeded = (what: string, now: number) =>
  rateLimited(retryAfter(now), `Rate limit reached for ${what}; try again later`);

/** Adds to the window's counts and returns them as they are after the add. */
async function add(keyId: string, start: number, requests: number, tokens: number) {
  const out = await ddb().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keys.rateLimit(RATE, keyId, start),
      UpdateExpression: 'ADD requests :r, tokens :t SET #ttl = if_not_exists(#ttl, :ttl)',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':r': requests, ':t': tokens, ':ttl': Math.ceil((start + WINDOW_MS) / 1000) + 60 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return { requests: Number(out.Attributes?.requests ?? 0), tokens: Number(out.Attributes?.tokens ?? 0) };
}

export interface RateTicket {
  keyId: string;
  window: number;
  tokens: number;
  /** The request was counted against rpm (given back only when the admission is redone). */
  rpm: boolean;
}

/**
 * Counts the call against the key's limits, or throws 429 rate_limit_exceeded with Retry-After.
 * A refused call gives its tokens back (its request still counts, as a refused request does
 * against any rpm limit).
 */
export async function admitRates(
  key: { id: string; rpmLimit: number | null; tpmLimit: number | null },
  worstTokens: number,
  now = Date.now(),
): Promise<RateTicket | null> {
  if (key.rpmLimit === null && key.tpmLimit === null) return null;
  const start = windowStart(now);
  const rpm = key.rpmLimit !== null;
  const tokens = key.tpmLimit === null ? 0 : worstTokens;
  const counts = await add(key.id, start, rpm ? 1 : 0, tokens);
  const refused =
    rpm && counts.requests > key.rpmLimit!
      ? 'requests per minute'
      : key.tpmLimit !== null && counts.tokens > key.tpmLimit
        ? 'tokens per minute'
        : null;
  if (refused) {
    if (tokens) await add(key.id, start, 0, -tokens);
    throw refusedBy(rateLimitExceeded(refused, now), refused === 'requests per minute' ? 'rpm' : 'tpm');
  }
  return { keyId: key.id, window: start, tokens, rpm };
}

/** The window gets the real use instead of the worst case (only while it is still the current one). */
export async function settleRates(ticket: RateTicket | null, usedTokens: number, now = Date.now()) {
  if (!ticket?.tokens || windowStart(now) !== ticket.window || usedTokens === ticket.tokens) return;
  await add(ticket.keyId, ticket.window, 0, usedTokens - ticket.tokens);
}

/** Takes an admission back entirely (it is redone on fresher limits): its tokens and its request. */
export async function undoRates(ticket: RateTicket | null, now = Date.now()) {
  if (!ticket || (!ticket.rpm && !ticket.tokens)) return;
  if (windowStart(now) !== ticket.window) return;
  await add(ticket.keyId, ticket.window, ticket.rpm ? -1 : 0, -ticket.tokens);
}
