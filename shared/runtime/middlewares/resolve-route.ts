import { methodNotAllowed, routeNotFound } from '#shared/http/errors.ts';
import { createShadowCheck } from '#shared/http/route-shapes.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import type { MiddyRequest } from '#shared/runtime/request.ts';

const routeKey = (r: Pick<RouteDef, 'method' | 'path'>) => `${r.method} ${r.path}`;

/**
 * API Gateway names the matched route in `routeKey`; the group's table maps it to a definition.
 * A path that names a literal sibling of the matched template (`PUT /api/secrets/sync/x` matched
 * as `PUT /api/secrets/{environment}/{key}`) is 405 with the sibling's methods (createShadowCheck).
 */
export const resolveRoute = (routes: readonly RouteDef[]) => {
  const byKey = new Map(routes.map((r) => [routeKey(r), r]));
  const shadowedBy = createShadowCheck(routes);
  return {
    before: async (request: MiddyRequest) => {
      const route = byKey.get(request.event.routeKey);
      if (!route) throw routeNotFound();
      const allowed = shadowedBy(route, request.event.rawPath ?? '');
      if (allowed.length) throw methodNotAllowed(allowed);
      request.context.state.route = route;
    },
  };
};
