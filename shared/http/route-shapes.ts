import { once, type HttpMethod } from '#shared/routes/types.ts';

/**
 * Matches `METHOD path` keys the way API Gateway matches route keys: a `{param}` is one
 * non-empty path segment. Enough to tell a wrong method (405) from an unknown path (404).
 */
export function createShapeMatcher(routeKeys: readonly string[]) {
  // Built on the first call, not at import: the fallback function's cold start is this module.
  const shapes = once(() =>
    routeKeys.map((key) => {
      const [method, path] = key.split(' ') as [HttpMethod, string];
      const source = path
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
        .join('');
      return { method, regex: new RegExp(`^${source}$`) };
    }),
  );
  return (path: string): HttpMethod[] =>
    shapes()
      .filter((s) => s.regex.test(path))
      .map((s) => s.method);
}
