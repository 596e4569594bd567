import { describe, expect, it } from 'vitest';
import type { RouteDef } from '#shared/routes/types.ts';
import {
  matchSpecRoutes,
  parseSpecRoutes,
  readSpecRoutes,
  shapeOf,
  SPEC_SPELLINGS,
} from '#test/support/spec-routes.ts';

const route = (method: RouteDef['method'], path: string, extra: Partial<RouteDef> = {}): RouteDef => ({
  id: `t.${method}${path}`,
  method,
  path,
  group: 'system',
  auth: { kind: 'none' },
  scope: { kind: 'public' },
  summary: 't',
  status: 200,
  ...extra,
});

describe('routes.txt parsing and matching', () => {
  it('reads every line of the real file, with unique shapes', () => {
    const spec = readSpecRoutes();
    expect(spec.length).toBeGreaterThan(100);
    const shapes = spec.map((s) => shapeOf(SPEC_SPELLINGS[s.key]?.[0] ?? s.key));
    expect(shapes.filter((s, i) => shapes.indexOf(s) !== i)).toEqual([]);
  });

  it('parses method, path and section, skipping comments', () => {
    expect(parseSpecRoutes('# c\n\nGET /api/a/{id}  # Area\n')).toEqual([
      { key: 'GET /api/a/{id}', method: 'GET', path: '/api/a/{id}', section: 'Area', line: 3 },
    ]);
    expect(() => parseSpecRoutes('FETCH /x')).toThrow(/line 1/);
    expect(() => parseSpecRoutes('GET /api/x/{id:thing}')).toThrow(/SPEC_SPELLINGS/);
  });

  it('matches by shape and reports other parameter names', () => {
    const [m] = matchSpecRoutes(parseSpecRoutes('GET /api/tools/{id}/config'), [
      route('GET', '/api/tools/{toolId}/config'),
    ]);
    expect(m!.found?.key).toBe('GET /api/tools/{toolId}/config');
    expect(m!.renamed).toBe('GET /api/tools/{id}/config is served as GET /api/tools/{toolId}/config');
  });

  it('maps {userId:password-reset} to an alias or a sub-path, never to PUT /api/users/{userId}', () => {
    const spec = parseSpecRoutes('PUT /api/users/{userId:password-reset}');
    expect(matchSpecRoutes(spec, [route('PUT', '/api/users/{userId}')])[0]!.found).toBeUndefined();
    expect(
      matchSpecRoutes(spec, [
        route('PUT', '/api/users/{userId}/reset', { aliases: ['/api/users/{userId}:password-reset'] }),
      ])[0]!.found?.key,
    ).toBe('PUT /api/users/{userId}:password-reset');
    expect(matchSpecRoutes(spec, [route('PUT', '/api/users/{id}/password-reset')])[0]!.found?.key).toBe(
      'PUT /api/users/{id}/password-reset',
    );
  });

  it('needs the same method', () => {
    expect(matchSpecRoutes(parseSpecRoutes('POST /api/a'), [route('GET', '/api/a')])[0]!.found).toBeUndefined();
  });
});
