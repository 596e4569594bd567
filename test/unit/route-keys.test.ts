import { describe, expect, it } from 'vitest';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import type { HttpMethod } from '#shared/routes/types.ts';
import { deployedRoutes } from '#api/routes.ts';
import { DEPLOYED_ALIAS_KEYS, DEPLOYED_ROUTE_KEYS } from '#api/route-keys.generated.ts';
import { routeKeysModule } from '#scripts/write-route-keys.ts';
import { readFileSync } from 'node:fs';

describe('route keys of the fallback function', () => {
  it('match the route table (run `npm run route-keys` after changing routes)', () => {
    const generated = readFileSync(new URL('../../api/route-keys.generated.ts', import.meta.url), 'utf8');
    expect(generated).toBe(routeKeysModule());
    expect(DEPLOYED_ROUTE_KEYS).toHaveLength(deployedRoutes.length);
  });

  it('tell 404 from 405 exactly as the full matcher does', () => {
    const full = createRouteMatcher(deployedRoutes);
    const keyed = createRouteMatcher(
      [...DEPLOYED_ROUTE_KEYS, ...DEPLOYED_ALIAS_KEYS].map((key) => {
        const [method, path] = key.split(' ') as [HttpMethod, string];
        return { method, path };
      }),
    );
    const id = crypto.randomUUID();
    const paths = [
      '/api/health',
      '/api/suppliers',
      `/api/suppliers/${id}`,
      `/api/suppliers/${id}/extra`,
      '/api/nowhere',
      `/api/tenants/acme/status`,
      `/api/roles/${id}/permissions`,
      '/api/secrets/prod/db.password',
      '/api/secrets/sync/prod',
      '/api/tools/built-in',
      `/api/users/${id}:password-reset`,
      '/',
    ];
    for (const path of paths) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        const expected = full(method, path);
        const got = keyed(method, path);
        expect(got.kind, `${method} ${path}`).toBe(expected.kind);
        if (expected.kind === 'method-not-allowed') expect(got, `${method} ${path}`).toEqual(expected);
        if (expected.kind !== 'route') expect(keyed.methods(path), path).toEqual(full.methods(path));
      }
    }
  });
});
