import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimitRule } from '#shared/routes/types.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { rateLimited } from '#shared/http/errors.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { isConditionFailure } from './condition-failure.ts';
import { keys } from './keys.ts';

/**
 * Fixed-window counter: one atomic ADD per request; the item expires by TTL after its window.
 * Returns how long to wait when the limit is exceeded.
 */
function windowOf(rule: RateLimitRule, now: number) {
  const windowMs = rule.windowSeconds * 1000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  return { windowMs, windowStart, retryAfterSeconds: Math.ceil((windowStart + windowMs - now) / 1000) };
}

export async function hitRateLimit(rule: RateLimitRule, subject: string, now = Date.now()) {
  const { windowMs, windowStart, retryAfterSeconds } = windowOf(rule, now);
  const out = await ddb().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keys.rateLimit(rule.name, subject, windowStart),
      UpdateExpression: 'ADD hits :one SET #ttl = if_not_exists(#ttl, :ttl)',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':ttl': Math.ceil((windowStart + windowMs) / 1000) + 60 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const hits = Number(out.Attributes?.hits ?? 0);
  return { allowed: hits <= rule.limit, retryAfterSeconds };
}

/** One hit against `rule`; over its limit, the refusal is counted and thrown (429 with Retry-After). */
export async function spendRateLimit(rule: RateLimitRule, subject: string, now = Date.now()): Promise<void> {
  const outcome = await hitRateLimit(rule, subject, now);
  if (outcome.allowed) return;
  countMetric('RateLimitRefused', rule.name);
  throw rateLimited(outcome.retryAfterSeconds);
}

/** Gives one hit of the current window back (a request that turned out not to count). */
export async function releaseRateLimit(rule: RateLimitRule, subject: string, now = Date.now()) {
  await ddb()
    .send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.rateLimit(rule.name, subject, windowOf(rule, now).windowStart),
        UpdateExpression: 'ADD hits :minus',
        ConditionExpression: 'hits > :zero',
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      }),
    )
    .catch((err) => {
      if (!isConditionFailure(err)) throw err;
    });
}

/** Forgets the current window's hits (e.g. after the account owner proved control). */
export async function clearRateLimit(rule: RateLimitRule, subject: string, now = Date.now()) {
  await ddb().send(
    new DeleteCommand({
      TableName: config.tableName,
      Key: keys.rateLimit(rule.name, subject, windowOf(rule, now).windowStart),
    }),
  );
}
