import { describe, expect, it } from 'vitest';
import { routes } from '#shared/routes/index.ts';
import { pathParamNames, schemaFields } from '#test/support/fuzz/route-matrix.ts';

/**
 * The declared scope is what the runtime resolves the tenant from and what the tenancy matrix
 * attacks, so it must agree with the rest of the route: its auth rule, its schemas and its path.
 */
describe('declared scopes', () => {
  it('every route declares one', () => {
    expect(routes.filter((r) => !r.scope).map((r) => r.id)).toEqual([]);
  });

  it('a route without a caller is public; a tenant or account scope needs a signed-in caller', () => {
    for (const r of routes) {
      if (r.auth.kind === 'none' || r.auth.kind === 'signature') expect(r.scope?.kind, r.id).toBe('public');
      if (r.scope?.kind === 'tenant' || r.scope?.kind === 'account') expect(r.auth.kind, r.id).toBe('bearer');
    }
  });

  it('names the tenant where the schemas take it: tenantFrom query/body exactly when that part has tenantId', () => {
    for (const r of routes) {
      const from = r.scope?.kind === 'tenant' ? r.scope.tenantFrom : undefined;
      for (const where of ['query', 'body'] as const) {
        expect('tenantId' in schemaFields(r, where), `${r.id} ${where}.tenantId`).toBe(from === where);
      }
      if (from === 'slug') expect(pathParamNames(r), r.id).toContain('slug');
    }
  });

  it('a record a SystemAdmin may name by id alone is a path parameter of the route', () => {
    for (const r of routes) {
      if (r.scope?.kind !== 'tenant' || !r.scope.record) continue;
      expect(pathParamNames(r), r.id).toContain(r.scope.record.param);
    }
  });
});
