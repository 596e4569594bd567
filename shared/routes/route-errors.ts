import {
  conflict,
  forbidden,
  internalError,
  invalidApiKey,
  invalidJson,
  notFound,
  payloadTooLarge,
  rateLimited,
  serviceUnavailable,
  unauthorized,
  unsupportedMediaType,
  validationError,
  type DeclaredError,
} from '#shared/http/errors.ts';
import type { AnySchema, RouteDef } from './types.ts';

export const pathParamNames = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);

export const hasBody = (route: RouteDef) =>
  route.body !== undefined || (route.bodyType !== undefined && route.bodyType !== 'json');

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch']);
type Def = { type: string; shape?: Record<string, unknown>; innerType?: AnySchema; in?: AnySchema };

/** Whether an input is an object with a `tenantId` field (what a client sends, before transforms). */
function namesTenant(schema: AnySchema | undefined): boolean {
  if (!schema) return false;
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  if (WRAPPERS.has(def.type)) return namesTenant(def.innerType);
  if (def.type === 'pipe') return namesTenant(def.in);
  return def.type === 'object' && 'tenantId' in (def.shape ?? {});
}

/**
 * The errors a route answers by what the runtime does for its definition: parsed input or a body
 * → 400; credentials (not a webhook's signature) → 401; roles, permission or a tenantId input → 403; path parameters or a
 * tenantId input (a SystemAdmin may name a tenant that does not exist) → 404; writes → 409; a body
 * → 415 unless the body is taken raw; always 413 (the size limit applies to whatever a request
 * carries, a body sent to a GET included), 429 (a route's own limit, else the API stage's
 * throttle), 500 and 503. What a handler answers beyond these is the route's `errors`.
 */
function derivedErrors(route: RouteDef): DeclaredError[] {
  const out: DeclaredError[] = [];
  const body = hasBody(route);
  const tenantInput = [route.params, route.query, route.body].some(namesTenant);
  if (route.params || route.query || body) out.push(validationError, ...(body ? [invalidJson] : []));
  const { auth } = route;
  // A webhook's signature is the handler's to check: a bad one is the area's own 400, never a 401.
  if (auth.kind !== 'none' && auth.kind !== 'signature') out.push(unauthorized);
  if (auth.kind === 'gatewayKey') out.push(invalidApiKey);
  if (
    (auth.kind === 'bearer' && (auth.roles || auth.permission || tenantInput)) ||
    (auth.kind === 'gatewayKey' && (auth.permission || tenantInput)) ||
    (auth.kind === 'internalKey' && auth.roles)
  ) {
    out.push(forbidden);
  }
  if (pathParamNames(route.path).length || tenantInput) out.push(notFound);
  if (route.method !== 'GET') out.push(conflict);
  out.push(payloadTooLarge);
  if (body && route.bodyType !== 'raw') out.push(unsupportedMediaType);
  out.push(rateLimited, internalError, serviceUnavailable);
  return out;
}

/** Every error a route can answer, derived and declared, grouped by status in ascending order. */
export function routeErrors(route: RouteDef): Map<number, DeclaredError[]> {
  const byStatus = new Map<number, DeclaredError[]>();
  for (const error of [...derivedErrors(route), ...(route.errors ?? [])]) {
    const list = byStatus.get(error.status) ?? [];
    if (!list.some((e) => e.code === error.code)) list.push(error);
    byStatus.set(error.status, list);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/** Whether a route may answer this status and code: the strict check of the test run. */
export function answers(route: RouteDef, status: number, code: string): boolean {
  return (
    routeErrors(route)
      .get(status)
      ?.some((e) => e.code === code) ?? false
  );
}
