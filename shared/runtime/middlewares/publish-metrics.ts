import { publishMetrics } from '#shared/runtime/metrics.ts';

/** Writes the request's business metrics once it is answered, whether it succeeded or not. */
export const publishMetricsAfter = () => ({
  after: async () => publishMetrics(),
  onError: async () => publishMetrics(),
});
