import { ApiError, internalError, serviceUnavailable, conflict } from '#shared/http/errors.ts';
import { openAiErrorToHttp } from '#shared/http/openai-error.ts';
import { errorToHttp } from '#shared/http/responses.ts';
import { logger } from '#shared/runtime/logger.ts';
import type { MiddyRequest } from '#shared/runtime/request.ts';

const THROTTLED = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'TooManyUpdates',
]);

/** Maps any thrown value to the envelope (or OpenAI's error format where the route says so). Only ApiError text reaches the client. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const name = (err as { name?: string } | null)?.name ?? '';
  if (THROTTLED.has(name)) return serviceUnavailable(1);
  if (name === 'TransactionCanceledException') {
    const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    if (reasons.some((r) => r.Code === 'TransactionConflict')) return conflict('Concurrent update, retry the request');
    if (reasons.some((r) => r.Code === 'ThrottlingError')) return serviceUnavailable(1);
  }
  return internalError();
}

export const errorEnvelope = () => ({
  onError: async (request: MiddyRequest) => {
    const apiError = toApiError(request.error);
    if (apiError.status >= 500) {
      logger.error('request failed', { error: request.error as Error, route: request.context.state?.route?.id });
    }
    const openAi = request.context.state?.route?.errorFormat === 'openai';
    request.response = openAi ? openAiErrorToHttp(apiError) : errorToHttp(apiError);
  },
});
