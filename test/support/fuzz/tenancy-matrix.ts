import type { RouteDef } from '#shared/routes/types.ts';
import { isSystemAdminOnly, recordParams, recordRefs, routesUnderTest, tenantIdPlaces } from './route-matrix.ts';
import { creatorAvailable } from './world.ts';

/**
 * The cross-tenant matrix, derived from the route table: which routes act on a tenant's data,
 * where they take a `tenantId`, which path parameters name records, and which query or body
 * fields reference records.
 */
export type TenancyCase =
  | { kind: 'foreign-tenantId'; route: RouteDef; where: 'query' | 'body' }
  | { kind: 'foreign-path-record'; route: RouteDef }
  | { kind: 'foreign-reference'; route: RouteDef; where: 'query' | 'body'; name: string }
  | { kind: 'read-leak'; route: RouteDef }
  /** A SystemAdmin naming tenant B while the path names tenant A's record. */
  | { kind: 'admin-other-tenant-record'; route: RouteDef }
  /** A SystemAdmin reading tenant A's record by its id alone, as the spec publishes the path. */
  | { kind: 'admin-by-id'; route: RouteDef };

export interface TenancyPlan {
  cases: TenancyCase[];
  skipped: { route: string; reason: string }[];
  /** Tenant routes the matrix cannot cover because it cannot create their records: a failure, never a skip. */
  uncovered: { route: string; reason: string }[];
  /** Record kinds the plan needs created in both tenants (param names). */
  recordKinds: string[];
}

/** A route acts on tenant data when its declared scope says so (RouteDef.scope), and a tenant user may call it. */
const isTenantScoped = (route: RouteDef) => route.scope?.kind === 'tenant' && !isSystemAdminOnly(route);

/** Why a route names no tenant's data, from its declared scope. */
function notTenantReason(route: RouteDef): string {
  switch (route.scope?.kind) {
    case 'public':
      return 'public route (no caller tenant)';
    case 'account':
      return "account-scoped: acts on the caller's own account only";
    case 'platform':
      return route.auth.kind === 'internalKey'
        ? 'platform data behind the internal API key'
        : 'platform data (SystemAdmin; tenant users get 403, see the auth matrix)';
    case 'tenant':
      return 'SystemAdmin only (tenant users get 403, see the auth matrix)';
    default:
      throw new Error(`${route.id} declares no scope`);
  }
}

export function tenancyPlan(routes: readonly RouteDef[] = routesUnderTest()): TenancyPlan {
  const cases: TenancyCase[] = [];
  const skipped: TenancyPlan['skipped'] = [];
  const uncovered: TenancyPlan['uncovered'] = [];
  const kinds = new Set<string>();
  for (const route of routes) {
    if (!isTenantScoped(route)) {
      skipped.push({ route: route.id, reason: notTenantReason(route) });
      continue;
    }
    const needed = [...recordParams(route), ...recordRefs(route).map((r) => r.name)];
    const missing = needed.map((n) => [n, creatorAvailable(n)] as const).filter(([, c]) => !c.ok);
    if (missing.length) {
      for (const [name, c] of missing)
        uncovered.push({
          route: route.id,
          reason: `cannot create a '${name}' record: ${(c as { reason: string }).reason}`,
        });
      continue;
    }
    for (const n of needed) kinds.add(n);
    for (const where of tenantIdPlaces(route)) cases.push({ kind: 'foreign-tenantId', route, where });
    if (recordParams(route).length) cases.push({ kind: 'foreign-path-record', route });
    if (route.scope?.kind === 'tenant' && route.scope.record && tenantIdPlaces(route).includes('query')) {
      cases.push({ kind: 'admin-other-tenant-record', route });
      if (route.method === 'GET') cases.push({ kind: 'admin-by-id', route });
    }
    for (const ref of recordRefs(route)) cases.push({ kind: 'foreign-reference', route, ...ref });
    // A read named by a free value (a model's name), not a record: a sampled value names nothing that
    // exists, so there is no answer to search for A's data; its refusal is the same for every tenant.
    const freeParams = [...route.path.matchAll(/\{([^}]+)\}/g)].filter((m) => !recordParams(route).includes(m[1]!));
    if (route.method === 'GET' && freeParams.length)
      skipped.push({ route: route.id, reason: 'read by a name, not a record: nothing of a tenant to leak' });
    else if (route.method === 'GET') cases.push({ kind: 'read-leak', route });
    if (!tenantIdPlaces(route).length && !recordParams(route).length && route.method !== 'GET') {
      skipped.push({
        route: route.id,
        reason: 'names no tenant and no record: nothing foreign to send (covered by the tenant-partition check)',
      });
    }
  }
  return { cases, skipped, uncovered, recordKinds: [...kinds] };
}
