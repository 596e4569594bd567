import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod/mini';
import type { Principal } from '#shared/auth/access-token.ts';
import type { TenantDirectory } from '#shared/auth/tenant-scope.ts';
import { withWiring, type Wiring } from '#shared/data/wiring.ts';
import { isReply, reply, toHttp, type StreamReply, type WholeReply } from '#shared/http/responses.ts';
import { assertSettings, requiredSettings } from '#shared/platform/config.ts';
import { API_GROUPS } from '#shared/routes/groups.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { finishDeferredWork } from './after-answer.ts';
import type { CredentialKind, CredentialResolvers } from './credentials.ts';
import { accessLog } from './middlewares/access-log.ts';
import { authenticate } from './middlewares/authenticate.ts';
import { errorEnvelope } from './middlewares/error-envelope.ts';
import { jsonBody } from './middlewares/json-body.ts';
import { publishMetricsAfter } from './middlewares/publish-metrics.ts';
import { rateLimit } from './middlewares/rate-limit.ts';
import { resolveRoute } from './middlewares/resolve-route.ts';
import { tenantScope } from './middlewares/tenant-scope.ts';
import { validate } from './middlewares/validate.ts';
import { sourceIp, type HttpResult, type MiddyRequest, type RouteHandler } from './request.ts';
import { assertResultMatches, shapeResult, strictResponses } from './response-shape.ts';

export type LambdaHttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** The buffered Lambda handler of a group; `core` is the same chain for the streaming front door. */
export type ApiLambda = LambdaHttpHandler & {
  core: (event: APIGatewayProxyEventV2, context: Context) => Promise<HttpResult>;
  /** What the group's emits reach (shared/data/events.ts): the front door runs under them too. */
  wiring: readonly Wiring[];
};

type Out<S> = S extends z.core.$ZodType ? z.output<S> : undefined;

/** The caller a route's auth rule guarantees: bearer routes always have one. */
type PrincipalOf<A> = A extends { kind: 'bearer' }
  ? Principal
  : A extends { kind: 'internalKey'; roles: readonly unknown[] }
    ? Principal
    : Principal | null;
/** The tenant a route's declared scope resolves to. */
type TenantOf<S> = S extends { kind: 'tenant' } ? string : null;
/**
 * What the handler returns as its result: typed by the response schema (a mapper that drifts from the
 * documented shape does not compile), nothing on 204, only a Reply for raw bodies.
 */
type ResultOf<R extends RouteDef> = R extends { rawResponse: object }
  ? never
  : R['status'] extends 204
    ? // biome-ignore lint/suspicious/noConfusingVoidType: a 204 handler may return what its use case returns (often Promise<void>); nothing of it is sent
      void
    : R['response'] extends z.core.$ZodType
      ? z.input<R['response']>
      : unknown;

/** Handler map keyed by route id: exactly one per route, typed by the route's own schemas, auth and scope. */
export type HandlersFor<T extends readonly RouteDef[]> = {
  [R in T[number] as R['id']]: RouteHandler<
    Out<R['params']>,
    Out<R['query']>,
    Out<R['body']>,
    PrincipalOf<R['auth']>,
    TenantOf<R['scope']>,
    ResultOf<R>
  >;
};

async function drain(stream: AsyncIterable<string | Uint8Array>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

/** A handler's return value as the HTTP answer: a Reply as it says, anything else as the route's result. */
function render(route: RouteDef, out: unknown): HttpResult {
  if (isReply(out)) return out.kind === 'stream' ? streamResult(out) : toHttp(shapeJson(route, out), route.status);

  if (route.status === 204 || (route.status === 202 && !route.response))
    return { statusCode: route.status, headers: {} };
  return toHttp(shapeJson(route, reply.json(out)), route.status);
}

function shapeJson(route: RouteDef, out: WholeReply): WholeReply {
  if (out.kind !== 'json' || !route.response) return out;
  if (strictResponses()) assertResultMatches(route.id, route.response, out.result);
  return { ...out, result: shapeResult(route.response, out.result) };
}

const streamResult = (out: StreamReply): HttpResult => ({
  statusCode: out.status,
  headers: { 'content-type': out.contentType, 'cache-control': 'no-store', ...out.headers },
  stream: out.body,
});

/** The credentials a table's routes name: its function must give a resolver for each. */
type CredentialsOf<T extends readonly RouteDef[]> = Pick<
  CredentialResolvers,
  Extract<T[number]['auth']['kind'], CredentialKind>
>;

/** A route that acts on a tenant a caller's token names (not a gateway key's or a widget session's). */
type NamesTenant<R extends RouteDef> = R extends { scope: { kind: 'tenant' } }
  ? R['auth']['kind'] extends CredentialKind
    ? never
    : R
  : never;

/**
 * Options of a group's handler: the resolvers of the area credentials its routes name and the tenant
 * directory its tenant-scoped routes need (each required when they need it), and its wiring.
 */
type Options<T extends readonly RouteDef[]> = { wiring?: readonly Wiring[] } & ([keyof CredentialsOf<T>] extends [never]
  ? { credentials?: never }
  : { credentials: CredentialsOf<T> }) &
  ([NamesTenant<T[number]>] extends [never] ? { tenants?: TenantDirectory } : { tenants: TenantDirectory });
type OptionsFor<T extends readonly RouteDef[]> = [keyof CredentialsOf<T>] extends [never]
  ? [NamesTenant<T[number]>] extends [never]
    ? [options?: Options<T>]
    : [options: Options<T>]
  : [options: Options<T>];

/**
 * One Lambda entry point for an endpoint group: resolve the route from API Gateway's routeKey,
 * authenticate, rate-limit, parse and validate, resolve the declared tenant scope, run the route's
 * handler and send its result with the route's status. A streamed answer is collected here (API
 * Gateway buffers anyway); the group's `streamHandler` (stream.ts) writes it as it comes.
 */
export function apiHandler<const T extends readonly RouteDef[]>(
  routes: T,
  handlers: NoInfer<HandlersFor<T>>,
  ...[options]: NoInfer<OptionsFor<T>>
): ApiLambda {
  const byId = handlers as unknown as Record<string, RouteHandler>;
  const credentials: Partial<CredentialResolvers> = options?.credentials ?? {};
  const tenants = options?.tenants;
  for (const route of routes) {
    const viaCredential = route.auth.kind === 'gatewayKey' || route.auth.kind === 'widgetSession';
    if (viaCredential && !credentials[route.auth.kind as CredentialKind])
      throw new Error(`${route.id} needs a ${route.auth.kind} resolver (apiHandler's credentials)`);
    if (route.scope?.kind === 'tenant' && !viaCredential && !tenants)
      throw new Error(`${route.id} acts on a tenant: its function passes the tenant directory (apiHandler's tenants)`);
  }
  const group = routes[0]?.group;
  if (group) assertSettings(requiredSettings(API_GROUPS[group]));
  const dispatch = async (event: APIGatewayProxyEventV2, context: Context): Promise<HttpResult> => {
    const { state } = context as MiddyRequest['context'];
    const route = state.route!;
    const out = await byId[route.id]!({
      route,
      params: state.params,
      query: state.query,
      body: state.body,
      principal: state.principal,
      tenantId: state.tenantId,
      ip: sourceIp(event),
      requestId: event.requestContext?.requestId ?? context.awsRequestId,
      headers: event.headers ?? {},
      rawBody: state.rawBody,
      isBase64Encoded: event.isBase64Encoded ?? false,
      rawPath: event.rawPath ?? '',
      gatewayKey: state.gatewayKey ?? null,
      widgetSession: state.widgetSession ?? null,
    });
    return render(route, out);
  };
  // Middlewares run `before` in this order and `after`/`onError` in reverse, so the envelope is set
  // before the access log records the status, and metrics are written last.
  const chain = middy() as unknown as {
    use(m: unknown[]): { handler(h: typeof dispatch): typeof dispatch };
  };
  const core = chain
    .use([
      publishMetricsAfter(),
      accessLog(),
      errorEnvelope(),
      resolveRoute(routes),
      authenticate(credentials),
      rateLimit(),
      jsonBody(),
      validate(),
      tenantScope(tenants),
    ])
    .handler(dispatch);
  const wiring = options?.wiring ?? [];
  const buffered = (event: APIGatewayProxyEventV2, context: Context) =>
    withWiring(wiring, async () => {
      const { stream, ...result } = await core(event, context);
      const whole = stream ? { ...result, body: await drain(stream) } : result;
      await finishDeferredWork();
      // HEAD: the GET's status and headers; the body is not sent (API Gateway does not drop it itself).
      return event.requestContext?.http?.method === 'HEAD' ? { ...whole, body: '', isBase64Encoded: false } : whole;
    });
  return Object.assign(buffered, { core, wiring });
}
