import type { HttpMethod } from '#shared/routes/types.ts';

const isParam = (segment: string) => segment.startsWith('{');

/**
 * Routes a templated route shadows: a sibling of the same depth that is literal wherever the two
 * differ (`/api/tools/built-in` beside `/api/tools/{toolId}`). API Gateway sends a request to the
 * template whenever the literal route lacks its method (`PUT /api/tools/built-in` reaches
 * `PUT /api/tools/{toolId}` with toolId `built-in`); such a path names the literal resource, so
 * the answer is 405 with the literal routes' methods, not the template's 400 or 404.
 *
 * Returns, for a route and a request path, the methods of the literal siblings that match the
 * path (empty when none does: the template serves it).
 */
export function createShadowCheck(routes: readonly { method: HttpMethod; path: string }[]) {
  const siblingsOf = new Map<string, { method: HttpMethod; segments: string[] }[]>();
  const siblings = (route: { method: HttpMethod; path: string }) => {
    let found = siblingsOf.get(route.path);
    if (found) return found;
    const mine = route.path.split('/');
    found = routes.flatMap((other) => {
      const segments = other.path.split('/');
      if (segments.length !== mine.length || other.path === route.path) return [];
      let moreLiteral = false;
      for (const [i, segment] of segments.entries()) {
        if (isParam(segment)) {
          if (!isParam(mine[i]!)) return [];
        } else if (isParam(mine[i]!)) moreLiteral = true;
        else if (segment !== mine[i]) return [];
      }
      return moreLiteral ? [{ method: other.method, segments }] : [];
    });
    siblingsOf.set(route.path, found);
    return found;
  };
  const check = (route: { method: HttpMethod; path: string }, path: string): HttpMethod[] => {
    const candidates = siblings(route);
    if (!candidates.length) return [];
    const given = path.split('/');
    const methods = candidates
      .filter(
        (s) => s.segments.length === given.length && s.segments.every((seg, i) => isParam(seg) || seg === given[i]),
      )
      .map((s) => s.method);
    return [...new Set(methods)].filter((m) => m !== route.method);
  };
  /** Whether some path of the route's shape belongs to a literal sibling (the API document lists 405). */
  return Object.assign(check, { shadows: (route: { method: HttpMethod; path: string }) => siblings(route).length > 0 });
}
