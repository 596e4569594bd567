import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Principal } from '#shared/auth/access-token.ts';
import type { Reply } from '#shared/http/responses.ts';
import type { RouteDef } from '#shared/routes/types.ts';

/** What a route handler receives: parsed, validated input and the verified caller. */
export interface ApiRequest<P = any, Q = any, B = any> {
  route: RouteDef;
  params: P;
  query: Q;
  body: B;
  /** Null only on routes whose auth kind is none, internal key or signature. */
  principal: Principal | null;
  ip: string;
  requestId: string;
  headers: Record<string, string | undefined>;
  /** The body exactly as received (signature checks, multipart). */
  rawBody: string | undefined;
  isBase64Encoded: boolean;
}

export type RouteHandler<P = any, Q = any, B = any> = (req: ApiRequest<P, Q, B>) => Promise<Reply>;

/** Per-invocation state that middlewares fill in before the route handler runs. */
export interface RequestState {
  route?: RouteDef;
  principal: Principal | null;
  params: unknown;
  query: unknown;
  body: unknown;
  rawBody: string | undefined;
  startedAt: number;
}

export interface MiddyRequest {
  event: APIGatewayProxyEventV2 & { body?: any };
  context: Context & { state: RequestState };
  response: APIGatewayProxyStructuredResultV2 | null;
  error: unknown;
  internal: Record<string, unknown>;
}

export const sourceIp = (event: APIGatewayProxyEventV2) => event.requestContext?.http?.sourceIp ?? '0.0.0.0';
export const header = (event: APIGatewayProxyEventV2, name: string) =>
  event.headers?.[name] ?? event.headers?.[name.toLowerCase()];
