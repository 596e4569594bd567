import { routeNotFound } from '#shared/http/errors.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import type { MiddyRequest } from '#shared/runtime/request.ts';

export const routeKey = (r: Pick<RouteDef, 'method' | 'path'>) => `${r.method} ${r.path}`;

/** API Gateway names the matched route in `routeKey`; the group's table maps it to a definition. */
export const resolveRoute = (routes: readonly RouteDef[]) => {
  const byKey = new Map(routes.map((r) => [routeKey(r), r]));
  return {
    before: async (request: MiddyRequest) => {
      const route = byKey.get(request.event.routeKey);
      if (!route) throw routeNotFound();
      request.context.state.route = route;
    },
  };
};
