import { hitRateLimit } from '#shared/data/rate-limit.ts';
import { rateLimited } from '#shared/http/errors.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { sourceIp, type MiddyRequest } from '#shared/runtime/request.ts';

/** Per-IP limits from the route table, counted in DynamoDB so every Lambda instance shares them. */
export const rateLimit = () => ({
  before: async (request: MiddyRequest) => {
    const rule = request.context.state.route!.rateLimit;
    if (!rule) return;
    const outcome = await hitRateLimit(rule, sourceIp(request.event));
    if (!outcome.allowed) {
      countMetric('RateLimitRefused', rule.name);
      throw rateLimited(outcome.retryAfterSeconds);
    }
  },
});
