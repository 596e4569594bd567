import { describe, expect, it } from 'vitest';
import { routes } from '#local/routes.ts';
import { isSystemAdminOnly, pathParamNames, schemaFields } from '#test/support/fuzz/route-matrix.ts';

/**
 * The declared scope is what the runtime resolves the tenant from and what the tenancy matrix
 * attacks, so it must agree with the rest of the route: its auth rule, its schemas and its path.
 */
describe('declared scopes', () => {
  it('every route declares one', () => {
    expect(routes.filter((r) => !r.scope?.kind).map((r) => r.id)).toEqual([]);
  });

  it('a route without a caller acts on no tenant (public, or an account it names); a tenant scope needs a signed-in caller', () => {
    for (const r of routes) {
      if (r.auth.kind === 'none' || r.auth.kind === 'signature')
        expect(['public', 'account'], r.id).toContain(r.scope.kind);
      // A gateway key names its tenant as a token does (the LLM gateway's /v1 routes); so does a widget
      // session (its one conversation's tenant).
      if (r.scope.kind === 'tenant') expect(['bearer', 'gatewayKey', 'widgetSession'], r.id).toContain(r.auth.kind);
    }
  });

  it('a tenant route names the tenant where its schemas take it: tenantFrom query/body exactly when that part has tenantId', () => {
    for (const r of routes) {
      if (r.scope.kind !== 'tenant') continue;
      for (const where of ['query', 'body'] as const) {
        expect('tenantId' in schemaFields(r, where), `${r.id} ${where}.tenantId`).toBe(r.scope.tenantFrom === where);
      }
      if (r.scope.tenantFrom === 'slug') expect(pathParamNames(r), r.id).toContain('slug');
    }
  });

  it('a route of another scope takes a tenantId only as data of a SystemAdmin-only route (no tenant user can aim it)', () => {
    for (const r of routes) {
      if (r.scope.kind === 'tenant') continue;
      const takes = (['query', 'body'] as const).filter((w) => 'tenantId' in schemaFields(r, w));
      if (takes.length) expect(isSystemAdminOnly(r), `${r.id} takes ${takes.join(', ')}.tenantId`).toBe(true);
    }
  });

  it('a record a SystemAdmin may name by id alone is a path parameter of the route', () => {
    for (const r of routes) {
      if (r.scope.kind !== 'tenant' || !r.scope.record) continue;
      expect(pathParamNames(r), r.id).toContain(r.scope.record.param);
    }
  });
});
