import { describe, expect, it } from 'vitest';
import { apiDocument } from '#api/openapi/api-document.ts';
import { BEYOND_SPEC } from '#api/openapi/beyond-spec.ts';
import { deployedRoutes, routes } from '#local/routes.ts';
import { matchSpecRoutes, readSpecRoutes, SPEC_SPELLINGS, shapeOf, tableSpellings } from '#test/support/spec-routes.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Contract routes served with other parameter names, each on purpose (as the test reports them). */
const DELIBERATE_RENAMES: string[] = [
  // One name for the tool id on every tool route, so the cross-tenant matrix sees them as record routes.
  'GET /api/tools/{id}/config is served as GET /api/tools/{toolId}/config',
  'PUT /api/tools/{id}/config is served as PUT /api/tools/{toolId}/config',
  'GET /api/tools/{id}/config-params is served as GET /api/tools/{toolId}/config-params',
  'PUT /api/tools/{id}/config-params is served as PUT /api/tools/{toolId}/config-params',
];

/** `METHOD path` → operationId for every operation in the document. */
function documentOperations() {
  const ops = new Map<string, string>();
  for (const [path, item] of Object.entries(apiDocument().paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (METHODS.includes(method)) ops.set(`${method.toUpperCase()} ${path}`, op.operationId);
    }
  }
  return ops;
}

describe('route table and OpenAPI document', () => {
  it('lists every deployed route (path and aliases) and nothing else', () => {
    // Prepare
    const served = tableSpellings(deployedRoutes);
    // Act
    const ops = documentOperations();
    // Assess
    const missing = served.filter((s) => !ops.has(s.key)).map((s) => `${s.key} (${s.route.id})`);
    const servedKeys = new Set(served.map((s) => s.key));
    const extra = [...ops.keys()].filter((k) => !servedKeys.has(k));
    expect(missing, 'routes missing from the document').toEqual([]);
    expect(extra, 'document operations no route serves').toEqual([]);
    for (const { key, route } of served)
      expect(ops.get(key)).toMatch(new RegExp(`^${route.id.replace(/\./g, '\\.')}(\\.alias\\d*)?$`));
  });

  it('leaves local-only routes out', () => {
    const ops = documentOperations();
    const deployed = new Set(tableSpellings(deployedRoutes).map((s) => s.key));
    const localOnly = tableSpellings(routes.filter((r) => r.localOnly)).filter((s) => !deployed.has(s.key));
    expect(localOnly.filter((s) => ops.has(s.key)).map((s) => s.key)).toEqual([]);
  });
});

describe('contract routes (docs/contract-routes.txt) and route table', () => {
  const spec = readSpecRoutes();
  const matches = matchSpecRoutes(spec, deployedRoutes);

  it('serves every spec route', () => {
    const missing = matches.filter((m) => !m.found).map((m) => `${m.spec.key}  # ${m.spec.section}`);
    expect(missing, 'spec routes missing from the route table').toEqual([]);
  });

  it('serves nothing beyond the spec except the routes listed as such', () => {
    const specShapes = new Set(spec.flatMap((s) => SPEC_SPELLINGS[s.key] ?? [s.key]).map(shapeOf));
    const served = tableSpellings(deployedRoutes);
    const unlisted = served
      .filter((s) => !specShapes.has(shapeOf(s.key)) && !BEYOND_SPEC.includes(s.key))
      .map((s) => `${s.key} (${s.route.id})`);
    const stale = BEYOND_SPEC.filter((k) => !served.some((s) => s.key === k));
    expect(
      unlisted,
      'table routes that the contract list does not name: fix the path, or list it in BEYOND_SPEC',
    ).toEqual([]);
    expect(stale, 'BEYOND_SPEC entries the table no longer serves').toEqual([]);
  });

  it("serves each contract route under the contract's parameter names, unless the rename is listed", () => {
    const renamed = matches.flatMap((m) => (m.renamed ? [m.renamed] : []));
    expect(
      renamed,
      'routes served under other parameter names: rename the parameter, or list it in DELIBERATE_RENAMES',
    ).toEqual(DELIBERATE_RENAMES);
  });
});
