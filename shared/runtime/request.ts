import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Principal } from '#shared/auth/access-token.ts';
import type { EmptyReply, JsonReply, RawReply, StreamReply } from '#shared/http/responses.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import type { GatewayKeyRef, WidgetSessionRef } from './credentials.ts';

/**
 * What a route handler receives: parsed, validated input (ids canonical), the verified caller, and
 * the tenant its declared scope resolved to. `principal` is a Principal on bearer routes and `tenantId`
 * a string on tenant-scoped routes (HandlersFor types both from the route).
 */
export interface ApiRequest<P = unknown, Q = unknown, B = unknown, Pr = Principal | null, T = string | null> {
  route: RouteDef;
  params: P;
  query: Q;
  body: B;
  principal: Pr;
  tenantId: T;
  ip: string;
  requestId: string;
  headers: Record<string, string | undefined>;
  /** The body exactly as received (signature checks, multipart). */
  rawBody: string | undefined;
  isBase64Encoded: boolean;
  /** The path exactly as received, still percent-encoded (the local platform stand-ins record it). */
  rawPath: string;
  /** The gateway key that authenticated the call (`gatewayKey` routes), else null. */
  gatewayKey: GatewayKeyRef | null;
  /** The widget session the call names (`widgetSession` routes; its secret not yet checked), else null. */
  widgetSession: WidgetSessionRef | null;
}

/**
 * A handler returns its route's result (sent with the route's status), or a Reply; a `reply.json`
 * carries a result of the same type.
 */
export type RouteHandler<
  P = unknown,
  Q = unknown,
  B = unknown,
  Pr = Principal | null,
  T = string | null,
  R = unknown,
> = (req: ApiRequest<P, Q, B, Pr, T>) => Promise<R | JsonReply<R> | EmptyReply | RawReply | StreamReply>;

/** Per-invocation state that middlewares fill in before the route handler runs. */
export interface RequestState {
  route?: RouteDef;
  principal: Principal | null;
  tenantId: string | null;
  params: unknown;
  query: unknown;
  body: unknown;
  rawBody: string | undefined;
  startedAt: number;
  gatewayKey?: GatewayKeyRef | null;
  widgetSession?: WidgetSessionRef | null;
}

/** A structured result, or one whose body is still being produced (the streaming front door writes it as it comes). */
export type HttpResult = APIGatewayProxyStructuredResultV2 & { stream?: AsyncIterable<string | Uint8Array> };

export interface MiddyRequest {
  event: APIGatewayProxyEventV2 & { body?: unknown };
  context: Context & { state: RequestState };
  response: HttpResult | null;
  error: unknown;
  internal: Record<string, unknown>;
}

export const sourceIp = (event: APIGatewayProxyEventV2) => event.requestContext?.http?.sourceIp ?? '0.0.0.0';
export const header = (event: APIGatewayProxyEventV2, name: string) =>
  event.headers?.[name] ?? event.headers?.[name.toLowerCase()];
