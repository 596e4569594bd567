import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, itemOfFailure, rawNumber } from '#shared/data/condition-failure.ts';
import { keys } from '#shared/data/keys.ts';
import { rateLimited } from '#shared/http/errors.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { refusedBy } from './refusal-memory.ts';

/**
 * A key's rpm and tpm limits (docs/decisions/llm-gateway.md, "rpm/tpm per key"), counted in one
 * fixed-window item per key and minute (`requests`, `tokens`). An instance does not count each call
 * there: it leases a slice of the window (some calls' requests and worst-case tokens) with one
 * conditional ADD that passes only while the window keeps within both limits, and admits calls from
 * the slice in memory; a call's unused tokens go back to the slice. What is leased has left the
 * window's headroom before any call uses it, so no instance can pass a limit; a slice nobody uses
 * lapses with its window (the lease's expiry: a frozen or recycled instance holds nothing longer).
 * Slices start at one call, double while the window has room, and stay within a share of the
 * headroom their write leaves, so near a limit each call leases only itself.
 */
const WINDOW_MS = 60_000;
const RATE = 'gk-rate';
/** A slice takes at most this share of what the window has left after it. */
const HEADROOM_SHARE = 4;
/** A slice takes at most this share of a limit, however empty the window. */
const LIMIT_SHARE = 8;
/** Keys with a slice in this instance; forgetting one leaves its slice to lapse with its window. */
const MAX_LEASES = 1000;

const windowStart = (now: number) => Math.floor(now / WINDOW_MS) * WINDOW_MS;
const retryAfter = (now: number) => Math.max(1, Math.ceil((windowStart(now) + WINDOW_MS - now) / 1000));

const rateLimitExceeded = (what: string, now: number) =>
  rateLimited(retryAfter(now), `Rate limit reached for ${what}; try again later`);
const refusal = (what: 'requests per minute' | 'tokens per minute', now: number) =>
  refusedBy(rateLimitExceeded(what, now), what === 'requests per minute' ? 'rpm' : 'tpm');

interface Counts {
  requests: number;
  tokens: number;
}

interface Limits {
  id: string;
  rpmLimit: number | null;
  tpmLimit: number | null;
}

/** This instance's slice of one key's window: what it may still admit without a write. */
interface Lease {
  window: number;
  /** The limits it was taken under: changed limits return it and lease afresh. */
  limits: string;
  requests: number;
  tokens: number;
  /** Calls the next slice is sized for. */
  nextCalls: number;
  /** Top-ups in flight: a call refused waits for them, since one may bring it room. */
  topUps: Set<Promise<unknown>>;
}

const leases = new Map<string, Lease>();
const limitsOf = (key: Limits) => `${key.rpmLimit}|${key.tpmLimit}`;

/**
 * Adds to the key's window under `marker`, an attribute of this write alone, so a retry of a write
 * that landed changes nothing. With `within`, only while the counts after it keep within those
 * limits. Answers whether it was written, with the counts after it (or, refused, as they were).
 */
async function addOnce(
  keyId: string,
  start: number,
  requests: number,
  tokens: number,
  within: Limits | null,
): Promise<{ written: boolean; counts: Counts }> {
  const marker = `l_${crypto.randomUUID()}`;
  const conditions = ['attribute_not_exists(#m)'];
  const values: Record<string, unknown> = {
    ':r': requests,
    ':t': tokens,
    ':one': 1,
    ':ttl': Math.ceil((start + WINDOW_MS) / 1000) + 60,
  };
  if (within && within.rpmLimit !== null) {
    conditions.push('(attribute_not_exists(requests) OR requests <= :maxR)');
    values[':maxR'] = within.rpmLimit - requests;
  }
  if (within && within.tpmLimit !== null) {
    conditions.push('(attribute_not_exists(tokens) OR tokens <= :maxT)');
    values[':maxT'] = within.tpmLimit - tokens;
  }
  try {
    const out = await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.rateLimit(RATE, keyId, start),
        UpdateExpression: 'SET #m = :one, #ttl = if_not_exists(#ttl, :ttl) ADD requests :r, tokens :t',
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: { '#m': marker, '#ttl': 'ttl' },
        ExpressionAttributeValues: values,
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    const counts = { requests: Number(out.Attributes?.requests ?? 0), tokens: Number(out.Attributes?.tokens ?? 0) };
    return { written: true, counts };
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
    const old = itemOfFailure(err);
    // Found with its marker: this write's own first attempt landed and only its answer was lost.
    return { written: marker in old, counts: { requests: rawNumber(old.requests), tokens: rawNumber(old.tokens) } };
  }
}

/** Calls the next slice may cover: twice the last, within the shares of the limits and of the headroom. */
function nextCalls(key: Limits, calls: number, worst: number, counts: Counts) {
  let most = calls * 2;
  if (key.rpmLimit !== null)
    most = Math.min(most, key.rpmLimit / LIMIT_SHARE, (key.rpmLimit - counts.requests) / HEADROOM_SHARE);
  if (key.tpmLimit !== null && worst > 0)
    most = Math.min(most, key.tpmLimit / LIMIT_SHARE / worst, (key.tpmLimit - counts.tokens) / HEADROOM_SHARE / worst);
  return Math.max(1, Math.floor(most));
}

/**
 * Tops the slice up for one call: a slice of `nextCalls` calls, or, when the window has no room for
 * that, exactly what the call lacks; refused when not even that fits.
 */
async function topUp(key: Limits, lease: Lease, need: Counts, worst: number, now: number) {
  const lacking = {
    requests: Math.max(0, need.requests - lease.requests),
    tokens: Math.max(0, need.tokens - lease.tokens),
  };
  const slice = {
    requests: key.rpmLimit === null ? 0 : Math.max(lacking.requests, lease.nextCalls),
    tokens: key.tpmLimit === null ? 0 : Math.max(lacking.tokens, lease.nextCalls * worst),
  };
  let taken = slice;
  let out = await addOnce(key.id, lease.window, slice.requests, slice.tokens, key);
  if (!out.written && (slice.requests > lacking.requests || slice.tokens > lacking.tokens)) {
    taken = lacking;
    out = await addOnce(key.id, lease.window, lacking.requests, lacking.tokens, key);
  }
  if (!out.written) {
    lease.nextCalls = 1;
    const overRpm = key.rpmLimit !== null && out.counts.requests + lacking.requests > key.rpmLimit;
    throw refusal(overRpm ? 'requests per minute' : 'tokens per minute', now);
  }
  lease.requests += taken.requests;
  lease.tokens += taken.tokens;
  lease.nextCalls = nextCalls(key, lease.nextCalls, worst, out.counts);
}

/** What is left of a slice goes back to its window (its limits changed; the window is still current). */
async function giveBackLease(key: Limits, lease: Lease) {
  const requests = Math.max(0, lease.requests);
  const tokens = Math.max(0, lease.tokens);
  lease.requests = 0;
  lease.tokens = 0;
  if (requests || tokens) await addOnce(key.id, lease.window, -requests, -tokens, null);
}

/** The slice of the key's current window in this instance, afresh when its limits changed. */
async function leaseOf(key: Limits, start: number): Promise<Lease> {
  const limits = limitsOf(key);
  const held = leases.get(key.id);
  if (held?.window === start && held.limits === limits) return held;
  if (held?.window === start) {
    await giveBackLease(key, held);
    // A call of this instance that read the same change may have leased afresh meanwhile.
    const latest = leases.get(key.id);
    if (latest !== held && latest?.window === start && latest.limits === limits) return latest;
  }
  if (leases.size >= MAX_LEASES && !leases.has(key.id)) leases.clear();
  const fresh: Lease = { window: start, limits, requests: 0, tokens: 0, nextCalls: 1, topUps: new Set() };
  leases.set(key.id, fresh);
  return fresh;
}

export interface RateTicket {
  keyId: string;
  window: number;
  tokens: number;
  /** The request was counted against rpm (given back only when the admission is redone). */
  rpm: boolean;
  lease: Lease;
}

/**
 * Counts the call against the key's limits from this instance's slice (leasing more when it lacks
 * room), or throws 429 rate_limit_exceeded with Retry-After.
 */
export async function admitRates(key: Limits, worstTokens: number, now = Date.now()): Promise<RateTicket | null> {
  if (key.rpmLimit === null && key.tpmLimit === null) return null;
  if (key.tpmLimit !== null && worstTokens > key.tpmLimit) throw refusal('tokens per minute', now);
  const start = windowStart(now);
  const lease = await leaseOf(key, start);
  const need = { requests: key.rpmLimit === null ? 0 : 1, tokens: key.tpmLimit === null ? 0 : worstTokens };
  // Checked again after each wait: calls of this instance running meanwhile share the slice, and
  // only a check and its take with no wait between them cannot both spend one request.
  const lacks = () => lease.requests < need.requests || lease.tokens < need.tokens;
  while (lacks()) {
    const mine = topUp(key, lease, need, worstTokens, now);
    lease.topUps.add(mine);
    try {
      await mine;
    } catch (err) {
      // Refused by the window: the room this instance's other top-ups bring is still this call's.
      lease.topUps.delete(mine);
      while (lacks() && lease.topUps.size) await Promise.allSettled([...lease.topUps]);
      if (lacks()) throw err;
    } finally {
      lease.topUps.delete(mine);
    }
  }
  lease.requests -= need.requests;
  lease.tokens -= need.tokens;
  return { keyId: key.id, window: start, tokens: need.tokens, rpm: need.requests === 1, lease };
}

const current = (ticket: RateTicket, now: number) =>
  windowStart(now) === ticket.window && leases.get(ticket.keyId) === ticket.lease;

/**
 * The slice gets back what the call did not use of its worst case. A call that used more (a
 * tokenizer's miscount) has the excess counted in the window, so tpm stays exact.
 */
export async function settleRates(ticket: RateTicket | null, usedTokens: number, now = Date.now()) {
  if (!ticket?.tokens || usedTokens === ticket.tokens) return;
  if (usedTokens > ticket.tokens) {
    if (windowStart(now) === ticket.window)
      await addOnce(ticket.keyId, ticket.window, 0, usedTokens - ticket.tokens, null);
    return;
  }
  if (current(ticket, now)) ticket.lease.tokens += ticket.tokens - usedTokens;
}

/** Takes an admission back entirely (it is redone on fresher limits): its tokens and its request. */
export async function undoRates(ticket: RateTicket | null, now = Date.now()) {
  if (!ticket || !current(ticket, now)) return;
  ticket.lease.requests += ticket.rpm ? 1 : 0;
  ticket.lease.tokens += ticket.tokens;
}
