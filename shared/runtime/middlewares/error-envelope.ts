import { ApiError, internalError, serviceUnavailable, conflict } from '#shared/http/errors.ts';
import { openAiErrorToHttp } from '#shared/http/openai-error.ts';
import { errorToHttp } from '#shared/http/responses.ts';
import { answers } from '#shared/routes/route-errors.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { logger } from '#shared/runtime/logger.ts';
import type { MiddyRequest } from '#shared/runtime/request.ts';
import { strictResponses } from '#shared/runtime/response-shape.ts';

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

/**
 * Under test (STRICT_RESPONSES=1) an error the route neither derives nor declares fails the request
 * (500, naming route and code), so every suite that reaches an error proves the document lists it.
 */
function undeclared(route: RouteDef | undefined, apiError: ApiError): ApiError | null {
  if (!route || !strictResponses() || answers(route, apiError.status, apiError.code)) return null;
  const message = `${route.id} answered ${apiError.status} ${apiError.code}, which its route neither derives nor declares (RouteDef.errors)`;
  logger.error('undeclared error', { route: route.id, status: apiError.status, code: apiError.code });
  return new ApiError(500, internalError.code, message);
}

export const errorEnvelope = () => ({
  onError: async (request: MiddyRequest) => {
    const route = request.context.state?.route;
    const thrown = toApiError(request.error);
    const apiError = undeclared(route, thrown) ?? thrown;
    if (thrown.status >= 500) {
      logger.error('request failed', { error: request.error as Error, route: route?.id });
    }
    const requestId = request.event.requestContext?.requestId ?? request.context.awsRequestId;
    request.response = route?.errorFormat === 'openai' ? openAiErrorToHttp(apiError, requestId) : errorToHttp(apiError);
  },
});
