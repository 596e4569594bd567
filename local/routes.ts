import { deployedRoutes } from '#api/routes.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { localRoutes } from './providers/routes.ts';

/** What the local server serves: the deployed table and the local-only stand-ins' pages (`/_local/...`). */
export const routes: readonly RouteDef[] = [...deployedRoutes, ...localRoutes];

export { deployedRoutes };
