import FindMyWay from 'find-my-way';
import type { HttpMethod, RouteDef } from '#shared/routes/types.ts';

export type RouteMatch =
  | { kind: 'route'; route: RouteDef; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: HttpMethod[] }
  | { kind: 'not-found' };

const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * `{name}` (API Gateway) to `:name` (find-my-way). Literal colons are escaped, and a parameter
 * followed by more text in its segment (`{userId}:password-reset`) stops at that text.
 */
const toRouterPath = (path: string) =>
  path
    .replace(/:/g, '::')
    .replace(/\{([^}]+)\}(?=[^/])/g, ':$1(^[^/:]+)')
    .replace(/\{([^}]+)\}/g, ':$1');

/**
 * Matches a request against the route table the way API Gateway does, and tells a wrong method
 * (405) from an unknown path (404). Used by the local server and the `$default` fallback function.
 */
export function createRouteMatcher(routes: readonly RouteDef[]) {
  const router = FindMyWay({ ignoreTrailingSlash: false, caseSensitive: true, maxParamLength: 500 });
  for (const route of routes) {
    for (const path of [route.path, ...(route.aliases ?? [])]) {
      router.on(route.method, toRouterPath(path), () => undefined, { route });
    }
  }
  return (method: string, path: string): RouteMatch => {
    const found = router.find(method as HttpMethod, path);
    if (found) {
      const { route } = found.store as { route: RouteDef };
      return { kind: 'route', route, params: found.params as Record<string, string> };
    }
    const allowed = METHODS.filter((m) => m !== method && router.find(m, path));
    return allowed.length ? { kind: 'method-not-allowed', allowed } : { kind: 'not-found' };
  };
}
