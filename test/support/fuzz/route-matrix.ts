import fc from 'fast-check';
import { LOCAL_MODEL_IDS } from '#areas/llm-gateway/catalog.ts';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import { routes as allRoutes } from '#local/routes.ts';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';
import type { AnySchema, RouteDef } from '#shared/routes/types.ts';
import { userUpdateBody } from '#areas/identity/routes/users.ts';
import { accepts, fieldsOf, isOpaque, jsonSchemaOf, validArb, type JsonSchema } from './arbitraries.ts';

export const SEED = 4242;

/** The routes under test: every route of the table, local-only provider stand-ins included. */
export const routesUnderTest = (): readonly RouteDef[] => allRoutes;

export const match = createRouteMatcher(allRoutes);

export const routeById = (id: string) => allRoutes.find((r) => r.id === id);

export const pathParamNames = (route: RouteDef) => [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);

/** A client cannot send a lone surrogate: it becomes U+FFFD on the wire, as TextEncoder does. */
const wellFormed = (s: string) =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/** Fills `{name}` segments, percent-encoding each value the way a client would. */
export const buildPath = (route: RouteDef, params: Record<string, unknown>) =>
  route.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(wellFormed(String(params[name] ?? ''))));

export const isProtected = (route: RouteDef) =>
  route.auth.kind === 'bearer' || route.auth.kind === 'internalKey' || route.auth.kind === 'gatewayKey';

export const isSystemAdminOnly = (route: RouteDef) =>
  (route.auth.kind === 'bearer' || route.auth.kind === 'internalKey') &&
  !!route.auth.roles?.length &&
  route.auth.roles.every((r) => r === 'SystemAdmin') &&
  !(route.auth.kind === 'bearer' && route.auth.permission);

export const takesJsonBody = (route: RouteDef) => !!route.body && (route.bodyType ?? 'json') === 'json';

/**
 * Object schemas behind body schemas that have no JSON Schema form (a transform choosing between
 * two bodies): the fields and valid values of the main case come from here.
 */
const BODY_SCHEMA_HINTS: Record<string, AnySchema> = {
  'users.update': userUpdateBody(),
};

const schemaFor = (route: RouteDef, where: 'params' | 'query' | 'body'): AnySchema | undefined => {
  const schema = route[where];
  if (!schema) return undefined;
  if (where === 'body' && BODY_SCHEMA_HINTS[route.id] && isOpaque(jsonSchemaOf(schema)))
    return BODY_SCHEMA_HINTS[route.id];
  return schema;
};

export const schemaFields = (route: RouteDef, where: 'params' | 'query' | 'body'): Record<string, JsonSchema> => {
  const schema = schemaFor(route, where);
  return schema ? fieldsOf(jsonSchemaOf(schema)) : {};
};

/** Where a SystemAdmin names the tenant of a route: its declared scope's `tenantFrom` (query or body). */
export const tenantIdPlaces = (route: RouteDef): ('query' | 'body')[] => {
  const from = route.scope?.kind === 'tenant' ? route.scope.tenantFrom : undefined;
  return from === 'query' || from === 'body' ? [from] : [];
};

/**
 * A path parameter names a record when it is called `…Id` or is the tenant `slug`.
 * Query and body fields called `…Id` (other than tenantId) reference records too.
 */
export const recordParams = (route: RouteDef) => pathParamNames(route).filter((n) => /Id$/.test(n) || n === 'slug');
/**
 * Fields called `…Id` that name no tenant record, so there is no other tenant's record to send:
 * each with the reason. Remove an entry when its records become tenant-owned.
 */
export const NOT_TENANT_REFERENCES: Readonly<Record<string, { reason: string; value: () => string }>> = {
  baseToolId: {
    reason: 'a built-in tool: platform reference data every tenant may name',
    value: () => BUILT_IN_TOOLS[0]!.id,
  },
  modelId: {
    reason: "a model of the LLM gateway's catalog: platform reference data every tenant may name",
    value: () => LOCAL_MODEL_IDS.chat,
  },
  embeddingModelId: {
    reason: "a catalog embedding model of the gateway (platform data), not a tenant's record",
    value: () => LOCAL_MODEL_IDS.embed,
  },
  appId: {
    reason:
      "a Teams bot's Microsoft app id (the local Bot Connector signs a token for it): the platform's, not a record",
    value: () => crypto.randomUUID(),
  },
};

export const recordRefs = (route: RouteDef) =>
  (['query', 'body'] as const).flatMap((where) =>
    Object.keys(schemaFields(route, where))
      .filter((n) => /Id$/.test(n) && n !== 'tenantId' && !(n in NOT_TENANT_REFERENCES))
      .map((name) => ({ where, name })),
  );

export interface RequestParts {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

/** Valid params, query and body of a route (what its own schemas accept), as an arbitrary. */
export function validRequestArb(route: RouteDef): fc.Arbitrary<RequestParts> {
  const part = (where: 'params' | 'query' | 'body') => {
    const schema = schemaFor(route, where);
    if (!schema) return fc.constant(where === 'body' ? undefined : {});
    const js = jsonSchemaOf(schema);
    if (isOpaque(js)) return fc.constant({});
    return validArb(js);
  };
  return fc.record({ params: part('params'), query: part('query'), body: part('body') }).map((r) => r as RequestParts);
}

/** Whether the route's own schemas accept these parts (the oracle of the bad-input property). */
export const isValidRequest = (route: RouteDef, parts: RequestParts) =>
  accepts(route.params, parts.params) &&
  accepts(route.query, parts.query) &&
  (!takesJsonBody(route) || accepts(route.body, parts.body));

/** One valid request, deterministic for the seed; throws when the generators cannot find one. */
const samples = new Map<string, RequestParts>();
/**
 * Rules a handler checks between fields, which a field-by-field sample does not meet: the sample
 * is brought within them, so the suites reach the handler's work.
 */
const WITHIN_HANDLER_BOUNDS: Readonly<Record<string, (parts: RequestParts) => void>> = {
  // Free slots of at most 31 days, from today on: the default range (today and the next six days).
  'ai.calendars.slots': (parts) => {
    delete parts.query.from;
    delete parts.query.to;
  },
};

export function sampleValid(route: RouteDef, seed = SEED): RequestParts {
  const cacheKey = `${route.id}#${seed}`;
  const cached = samples.get(cacheKey);
  if (cached) return structuredClone(cached);
  const candidates = fc.sample(validRequestArb(route), { seed, numRuns: 50 });
  const ok = candidates.find((c) => isValidRequest(route, c));
  if (!ok) throw new Error(`No valid request generated for ${route.id}`);
  WITHIN_HANDLER_BOUNDS[route.id]?.(ok);
  samples.set(cacheKey, ok);
  return structuredClone(ok);
}

export const queryString = (query: Record<string, unknown>) =>
  new URLSearchParams(
    Object.entries(query)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]): [string, string] => [wellFormed(k), wellFormed(String(v))]),
  ).toString();
