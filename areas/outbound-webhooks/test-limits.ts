import { spendRateLimit } from '#shared/data/rate-limit.ts';
import { writeOne } from '#shared/data/write-one.ts';
import { rateLimited } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import type { RateLimitRule } from '#shared/routes/types.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { BACKOFF_SECONDS, testsInFlightKey } from './records.ts';

/**
 * The test route sends a signed POST to a URL the tenant chose, retried up to six times: without a
 * bound, a burst of tests is a burst of requests at any public address. Counted per subscription and
 * per tenant (fixed windows in the table, as the route table's per-IP limits are), and the test
 * deliveries of a subscription not yet delivered are capped, so a receiver that keeps failing does
 * not pile up retries.
 */
export const TEST_LIMITS = {
  perSubscription: { name: 'webhook-test-subscription', limit: 5, windowSeconds: 60 },
  perTenant: { name: 'webhook-test-tenant', limit: 20, windowSeconds: 60 },
} as const satisfies Record<string, RateLimitRule>;
export const MAX_TESTS_IN_FLIGHT = 3;

/**
 * After this long without a new test, every earlier test delivery has finished or been dead-lettered
 * (the back-off's whole span plus margin), so a count a lost message left behind is forgotten.
 */
const IN_FLIGHT_HORIZON_SECONDS = BACKOFF_SECONDS.reduce((a, b) => a + b, 0) + 15 * 60;
/** What a refused caller is told to wait: about the first retry's back-off. */
const IN_FLIGHT_RETRY_AFTER = 60;

/** Takes one place among the subscription's test deliveries in flight, or refuses with 429. */
async function claimInFlight(tenantId: string, subscriptionId: string) {
  const now = Math.floor(Date.now() / 1000);
  const staleAt = now + IN_FLIGHT_HORIZON_SECONDS;
  const common = {
    TableName: config.tableName,
    Key: testsInFlightKey(tenantId, subscriptionId),
    ExpressionAttributeNames: { '#n': 'inFlight', '#stale': 'staleAt', '#ttl': 'ttl' },
  };
  const claimed = await writeOne({
    Update: {
      ...common,
      UpdateExpression: 'SET #n = if_not_exists(#n, :zero) + :one, #stale = :stale, #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(#n) OR #n < :max',
      ExpressionAttributeValues: {
        ':zero': 0,
        ':one': 1,
        ':max': MAX_TESTS_IN_FLIGHT,
        ':stale': staleAt,
        ':ttl': staleAt,
      },
    },
  });
  if (claimed.written) return;
  // Full, unless the count outlived every delivery it counted: then it starts again at this one.
  const restarted = await writeOne({
    Update: {
      ...common,
      UpdateExpression: 'SET #n = :one, #stale = :stale, #ttl = :ttl',
      ConditionExpression: '#stale < :now',
      ExpressionAttributeValues: { ':one': 1, ':now': now, ':stale': staleAt, ':ttl': staleAt },
    },
  });
  if (restarted.written) return;
  countMetric('RateLimitRefused', 'webhook-tests-in-flight');
  throw rateLimited(
    IN_FLIGHT_RETRY_AFTER,
    `At most ${MAX_TESTS_IN_FLIGHT} test deliveries of a subscription are in flight (not yet delivered); try again once one is`,
  );
}

/** The limits a test passes before it is queued: per subscription, per tenant, then in flight. */
export async function admitTest(tenantId: string, subscriptionId: string) {
  await spendRateLimit(TEST_LIMITS.perSubscription, `${tenantId}:${subscriptionId}`);
  await spendRateLimit(TEST_LIMITS.perTenant, tenantId);
  await claimInFlight(tenantId, subscriptionId);
}

/** A test delivery finished (delivered or given up): its place is free. */
export async function releaseInFlight(tenantId: string, subscriptionId: string) {
  await writeOne({
    Update: {
      TableName: config.tableName,
      Key: testsInFlightKey(tenantId, subscriptionId),
      UpdateExpression: 'ADD #n :minus',
      ConditionExpression: '#n > :zero',
      ExpressionAttributeNames: { '#n': 'inFlight' },
      ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
    },
  });
}
