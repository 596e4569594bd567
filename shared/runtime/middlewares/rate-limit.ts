import { spendRateLimit } from '#shared/data/rate-limit.ts';
import { sourceIp, type MiddyRequest } from '#shared/runtime/request.ts';

/** Per-IP limits from the route table, counted in DynamoDB so every Lambda instance shares them. */
export const rateLimit = () => ({
  before: async (request: MiddyRequest) => {
    const rule = request.context.state.route!.rateLimit;
    if (rule) await spendRateLimit(rule, sourceIp(request.event));
  },
});
