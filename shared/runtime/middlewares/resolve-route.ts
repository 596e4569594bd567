import { methodNotAllowed, routeNotFound } from '#shared/http/errors.ts';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import { servesHead } from '#shared/routes/head.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import type { MiddyRequest } from '#shared/runtime/request.ts';

const routeKey = (r: Pick<RouteDef, 'method' | 'path'>) => `${r.method} ${r.path}`;

/**
 * API Gateway names the matched route in `routeKey`; the group's table maps it to a definition.
 * A path that names a more literal spelling of the group (`PUT /api/secrets/sync/x` matched as
 * `PUT /api/secrets/{environment}/{key}`) is 405 unless that spelling serves the method: the
 * matcher's rule, so this `Allow` is the fallback's. Every such pair lies within one group
 * (test/unit/route-matcher.test.ts), so the group's table is enough.
 */
export const resolveRoute = (routes: readonly RouteDef[]) => {
  const byKey = new Map(routes.map((r) => [routeKey(r), r]));
  // API Gateway names a public GET's HEAD route `HEAD /path`: the GET answers it (without its body).
  for (const r of routes) if (servesHead(r)) byKey.set(`HEAD ${r.path}`, r);
  const matcher = createRouteMatcher(routes);
  return {
    before: async (request: MiddyRequest) => {
      const route = byKey.get(request.event.routeKey);
      if (!route) throw routeNotFound();
      const served = matcher.methods(request.event.rawPath ?? '');
      // An empty list: a path API Gateway matched that no spelling here fits (a stage prefix, a test event).
      if (served.length && !served.includes(route.method)) throw methodNotAllowed(served);
      request.context.state.route = route;
    },
  };
};
