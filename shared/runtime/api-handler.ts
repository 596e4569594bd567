import middy from '@middy/core';
import type { z } from 'zod/mini';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { toHttp } from '#shared/http/responses.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { accessLog } from '#shared/runtime/middlewares/access-log.ts';
import { authenticate } from '#shared/runtime/middlewares/authenticate.ts';
import { errorEnvelope } from '#shared/runtime/middlewares/error-envelope.ts';
import { jsonBody } from '#shared/runtime/middlewares/json-body.ts';
import { publishMetricsAfter } from '#shared/runtime/middlewares/publish-metrics.ts';
import { rateLimit } from '#shared/runtime/middlewares/rate-limit.ts';
import { resolveRoute } from '#shared/runtime/middlewares/resolve-route.ts';
import { validate } from '#shared/runtime/middlewares/validate.ts';
import { sourceIp, type MiddyRequest, type RouteHandler } from './request.ts';

export type LambdaHttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

type Out<S> = S extends z.core.$ZodType ? z.output<S> : undefined;

/** Handler map keyed by route id: exactly one per route, typed by the route's own schemas. */
export type HandlersFor<T extends readonly RouteDef[]> = {
  [R in T[number] as R['id']]: RouteHandler<Out<R['params']>, Out<R['query']>, Out<R['body']>>;
};

/**
 * One Lambda entry point for an endpoint group: resolve the route from API Gateway's routeKey,
 * authenticate, rate-limit, parse and validate, then run the route's handler.
 */
export function apiHandler<const T extends readonly RouteDef[]>(
  routes: T,
  handlers: NoInfer<HandlersFor<T>>,
): LambdaHttpHandler {
  const byId = handlers as unknown as Record<string, RouteHandler>;
  const dispatch = async (
    event: APIGatewayProxyEventV2,
    context: Context,
  ): Promise<APIGatewayProxyStructuredResultV2> => {
    const { state } = context as MiddyRequest['context'];
    const route = state.route!;
    const reply = await byId[route.id]!({
      route,
      params: state.params,
      query: state.query,
      body: state.body,
      principal: state.principal,
      ip: sourceIp(event),
      requestId: event.requestContext?.requestId ?? context.awsRequestId,
      headers: event.headers ?? {},
      rawBody: state.rawBody,
      isBase64Encoded: event.isBase64Encoded ?? false,
    });
    return toHttp(reply);
  };
  // Middlewares run `before` in this order and `after`/`onError` in reverse, so the envelope is set
  // before the access log records the status, and metrics are written last.
  const chain = middy() as unknown as { use(m: unknown[]): { handler(h: LambdaHttpHandler): LambdaHttpHandler } };
  return chain
    .use([
      publishMetricsAfter(),
      accessLog(),
      errorEnvelope(),
      resolveRoute(routes),
      authenticate(),
      rateLimit(),
      jsonBody(),
      validate(),
    ])
    .handler(dispatch);
}
