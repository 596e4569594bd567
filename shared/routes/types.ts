import type { z } from 'zod/mini';
import type { Permission, SystemRole } from '#shared/auth/permissions.ts';
import type { DeclaredError } from '#shared/http/errors.ts';
import type { TenantCollection } from '#shared/data/keys.ts';
import type { GroupName } from './groups.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route. `bearer` passes when the caller holds any listed role or the permission;
 * with neither listed, any signed-in caller passes. SystemAdmin passes every bearer rule.
 */
export type AuthRule =
  | { kind: 'none' }
  | { kind: 'bearer'; roles?: readonly SystemRole[]; permission?: Permission; allowExpired?: boolean }
  | { kind: 'internalKey'; roles?: readonly SystemRole[] }
  /**
   * A provider's webhook: the payment providers, or a chat platform (the AI connector, verified with
   * the connection's own secret). Checked by the handler, which needs the raw body and the secret.
   */
  | {
      kind: 'signature';
      provider: 'payment-provider-a' | 'payment-provider-b' | 'slack' | 'teams' | 'whatsapp' | 'telegram' | 'discord';
    }
  /**
   * The LLM gateway's `/v1` routes: a gateway key (`Authorization: Bearer gk_...`, the tenant is the
   * key's) or a signed-in user's access token (with the permission when listed).
   */
  | { kind: 'gatewayKey'; permission?: Permission }
  /**
   * A widget visitor: the session token a widget session gave (`X-Widget-Session`), naming one
   * conversation of one tenant; the handler checks it against that conversation.
   */
  | { kind: 'widgetSession' };

export interface RateLimitRule {
  /** Counter name shared by the routes that count together (e.g. all sign-in routes). */
  name: string;
  limit: number;
  windowSeconds: number;
}

export type AnySchema = z.core.$ZodType;

/** A request header a route reads: the API document lists it as a header parameter. */
export interface RequestHeader {
  name: string;
  /** A request without it is refused (a webhook's signature); otherwise it only changes the answer. */
  required?: boolean;
  description: string;
  /** What the handler accepts, so the document says it (`^[A-Za-z0-9_.:-]{1,100}$`). */
  pattern?: string;
}

/**
 * A success the handler answers beside the route's `status`: 201 with the same body (an upsert
 * that created), 304 without one (a conditional GET whose `If-None-Match` still holds).
 */
export interface OtherSuccess {
  status: 201 | 304;
  when: string;
}

/** A record a route's path names, whose tenant a SystemAdmin may leave to the record's id. */
interface ScopedRecord {
  /** The path parameter holding the record's id (`biaId`). */
  param: string;
  collection: TenantCollection;
  /** The name in the 404 message (`BIA`). */
  label: string;
}

/**
 * Whose data a route acts on, resolved once before the handler runs (the tenantScope middleware):
 * - `public`: nobody's in particular (health, public content, provider webhooks);
 * - `account`: the caller's own account (sign-in, password, profile);
 * - `platform`: platform data (SystemAdmin routes, reference data, internal-key routes);
 * - `tenant`: one tenant's data. A tenant user always acts on its own tenant (naming another is
 *   403). A SystemAdmin names the tenant through `tenantFrom` (`query.tenantId`, `body.tenantId`,
 *   or the tenant `slug` path parameter), or, on a route under `record`, by the record's id alone.
 *   The handler receives the resolved `tenantId`.
 */
export type Scope =
  | { kind: 'public' }
  | { kind: 'account' }
  | { kind: 'platform' }
  | { kind: 'tenant'; tenantFrom?: 'query' | 'body' | 'slug'; record?: ScopedRecord };

/** Route-file shorthands for the scopes. */
export const scope = {
  public: { kind: 'public' },
  account: { kind: 'account' },
  platform: { kind: 'platform' },
  tenant: <const O extends Omit<Extract<Scope, { kind: 'tenant' }>, 'kind'>>(opts: O = {} as O) =>
    ({ kind: 'tenant', ...opts }) as const,
} as const;

/**
 * How the answer travels: `buffered` (API Gateway HTTP API, 30 s, whole body) or `stream` (also
 * served by the group's streaming front door, a Lambda function URL in response-stream mode, where
 * the handler may answer server-sent events as they are produced; docs/decisions/platform.md, "Streaming").
 */
type Transport = 'buffered' | 'stream';

export interface RouteDef {
  /** Stable id, `area.action`; used for handler maps, OpenAPI operationId and logs. */
  id: string;
  method: HttpMethod;
  /** API Gateway path syntax: `/api/suppliers/{supplierId}`. */
  path: string;
  group: GroupName;
  auth: AuthRule;
  summary: string;
  /** Success status; 204 and 202 without a body unless `response` is set. */
  status: 200 | 201 | 202 | 204;
  params?: AnySchema;
  query?: AnySchema;
  body?: AnySchema;
  /**
   * The body as the API document shows it, where `body` parses through a transform JSON Schema
   * cannot show (it would read as `{}`): the forms the transform accepts. Never used to parse.
   */
  documentedBody?: AnySchema;
  /** Schema of `result` in the success envelope (or the raw body's content type). */
  response?: AnySchema;
  /** A body that is not JSON: its media type, or the media types it may be (one route serving several files). */
  rawResponse?: { contentType: string | readonly string[] };
  /** Further success statuses the handler answers; see `OtherSuccess`. */
  alsoAnswers?: readonly OtherSuccess[];
  /**
   * The route may answer its success as server-sent events (`text/event-stream`) instead of JSON:
   * when, and what the events carry. The document lists both media types for the success status.
   */
  eventStream?: string;
  /**
   * The `data:` payload of each event of `eventStream` (a union of the event kinds), shown in the
   * document beside that media type; `[DONE]` and the like stay in `eventStream`'s words.
   */
  events?: AnySchema;
  /** Request headers the handler reads beyond credentials and Content-Type (Idempotency-Key, a signature). */
  headers?: readonly RequestHeader[];
  /** Body content type when not JSON (multipart upload, provider webhooks). */
  bodyType?: 'json' | 'multipart' | 'raw';
  /**
   * A `multipart` route that also takes a JSON body, picked by the request's Content-Type (a
   * document as a file or as `{title, text}`): that body's schema. The OpenAPI document lists both
   * media types; the runtime leaves a multipart route's body to its handler, which validates the
   * JSON form with this same schema.
   */
  jsonBody?: AnySchema;
  maxBodyBytes?: number;
  /** The 413's message for a body over `maxBodyBytes`, where the route can say what to do instead. */
  tooLargeMessage?: string;
  rateLimit?: RateLimitRule;
  /**
   * Path parameters that are credentials (a feed's secret, a bot token): logs write a short digest
   * in their place (`shared/runtime/logged-path.ts`), never the value.
   */
  credentialParams?: readonly string[];
  /** Extra path spellings served by the same handler (local server and routes.txt mapping). */
  aliases?: readonly string[];
  /** Only served by the local server, never deployed. */
  localOnly?: boolean;
  /** Whose data the route acts on; see `Scope`. */
  scope: Scope;
  /** `buffered` unless said. */
  transport?: Transport;
  /**
   * How errors are written: the platform envelope (default), or OpenAI's wire format
   * `{"error":{"message","type","code"}}` (the LLM gateway's `/v1` routes, so OpenAI clients read them).
   */
  errorFormat?: 'envelope' | 'openai';
  /**
   * The errors the handler answers beyond those the definition implies (route-errors.ts derives
   * them from the auth rule, parameters, body and method): the area's own codes, and generic ones
   * such as a 404 for a record a body names or a 409 on a GET. The OpenAPI document lists each
   * status with its codes; under test (STRICT_RESPONSES=1) an error the route neither derives nor
   * declares answers 500.
   */
  errors?: readonly DeclaredError[];
}

/** A route's schemas: what the request is parsed with and what `result` documents. */
type RouteSchemas = Pick<RouteDef, 'params' | 'query' | 'body' | 'documentedBody' | 'jsonBody' | 'response' | 'events'>;

/**
 * A route as a route file writes it: its schemas behind a thunk. A function serves one route per
 * request, so it builds that route's schemas when the route is first read (hundreds of zod
 * objects per table otherwise, built at every cold start for routes the request does not use).
 */
export type RouteSpec = Omit<RouteDef, keyof RouteSchemas> & { schemas?: () => RouteSchemas } & {
  [K in keyof RouteSchemas]?: never;
};

type Built<S> = S extends { schemas: () => infer R } ? Omit<S, 'schemas'> & R : Omit<S, 'schemas'>;

const SCHEMA_KEYS = ['params', 'query', 'body', 'documentedBody', 'jsonBody', 'response', 'events'] as const;

function withLazySchemas(spec: RouteSpec): RouteDef {
  const { schemas, ...route } = spec;
  if (!schemas) return route;
  const built = once(schemas);
  for (const key of SCHEMA_KEYS) Object.defineProperty(route, key, { enumerable: true, get: () => built()[key] });
  return route;
}

/** The table of a route file: literal ids kept (handler maps are checked against them), schemas lazy. */
export const defineRoutes = <const T extends readonly RouteSpec[]>(
  routes: T,
): { readonly [K in keyof T]: Built<T[K]> } => routes.map(withLazySchemas) as never;

/** A schema (or any value) built on first use and kept: for schemas several routes share. */
export function once<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}
