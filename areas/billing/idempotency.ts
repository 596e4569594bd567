import { createHash } from 'node:crypto';
import { claim, done, release, resultOf } from '#shared/data/idempotency.ts';
import { idempotencyKeyReused, idempotencyRequestInProgress, invalidIdempotencyKey } from './errors.ts';
import { billingKeys } from './records.ts';

/** Keys are kept a day: long enough for any client retry, short enough not to pile up. */
const KEY_TTL_SECONDS = 24 * 3600;
const KEY_PATTERN = /^[\x21-\x7e]{1,200}$/;
/**
 * Money moves at most once: a claim whose request never finished is not taken over while its key
 * lives (a retry is 409 rather than a second charge).
 */
const CLAIM = { leaseMs: KEY_TTL_SECONDS * 1000, ttlSeconds: KEY_TTL_SECONDS };

/**
 * Runs a money-moving request at most once per `Idempotency-Key`: the first request with a key
 * runs and its result is kept; the same key with the same body gets that result again; the same
 * key with another body is 409. A request that failed gives its key back, so it may be retried.
 */
export async function idempotent<T>(
  tenantId: string,
  scope: string,
  key: string | undefined,
  body: unknown,
  run: () => Promise<T>,
): Promise<T> {
  if (key === undefined) return run();
  if (!KEY_PATTERN.test(key)) throw invalidIdempotencyKey();
  const itemKey = billingKeys.idempotency(tenantId, scope, key);
  const bodyHash = createHash('sha256')
    .update(JSON.stringify(body ?? null))
    .digest('hex');
  const outcome = await claim(itemKey, { ...CLAIM, data: { bodyHash } });
  if (outcome.kind !== 'claimed') {
    if (outcome.claim?.data?.bodyHash !== bodyHash) throw idempotencyKeyReused();
    if (outcome.kind !== 'done') throw idempotencyRequestInProgress();
    return resultOf<T>(outcome.claim);
  }
  let result: T;
  try {
    result = await run();
  } catch (err) {
    await release(itemKey);
    throw err;
  }
  await done(itemKey, result ?? null);
  return result;
}
