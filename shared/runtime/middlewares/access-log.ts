import { logger } from '#shared/runtime/logger.ts';
import { loggedPath } from '#shared/runtime/logged-path.ts';
import type { MiddyRequest } from '#shared/runtime/request.ts';

/** One structured line per request, correlated by the API Gateway request id. */
export const accessLog = () => {
  const done = (request: MiddyRequest) => {
    const { state } = request.context;
    logger.info('request', {
      route: state.route?.id ?? null,
      method: request.event.requestContext?.http?.method,
      path: loggedPath(state.route, request.event.rawPath ?? ''),
      status: request.response?.statusCode,
      ms: Math.round((performance.now() - state.startedAt) * 100) / 100,
      userId: state.principal?.userId,
      tenantId: state.tenantId ?? state.principal?.tenantId,
    });
    logger.removeKeys(['requestId']);
  };
  return {
    before: async (request: MiddyRequest) => {
      request.context.state = {
        principal: null,
        tenantId: null,
        params: {},
        query: {},
        body: undefined,
        rawBody: undefined,
        startedAt: performance.now(),
      };
      logger.appendKeys({ requestId: request.event.requestContext?.requestId ?? request.context.awsRequestId });
    },
    after: async (request: MiddyRequest) => done(request),
    onError: async (request: MiddyRequest) => {
      if (request.response) done(request);
    },
  };
};
