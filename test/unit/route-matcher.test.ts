import { describe, expect, it } from 'vitest';
import { createRouteMatcher, type RoutePattern } from '#shared/http/route-matcher.ts';
import { deployedRoutes } from '#api/routes.ts';

const route = (method: RoutePattern['method'], path: string, aliases?: string[]) => ({ method, path, aliases });

describe('route matcher: the local server', () => {
  const table = [
    route('GET', '/api/tools/built-in'),
    route('GET', '/api/tools/{toolId}'),
    route('PUT', '/api/tools/{toolId}'),
    route('GET', '/api/users/{userId}'),
    route('PUT', '/api/users/{userId}/password-reset', ['/api/users/{userId}:password-reset']),
    route('POST', '/api/proactive-messages'),
    route('GET', '/api/proactive-messages'),
  ];
  const match = createRouteMatcher(table);

  it('prefers the route literal soonest, whatever the table order', () => {
    expect(match('GET', '/api/tools/built-in')).toEqual({ kind: 'route', route: table[0], params: {} });
    expect(createRouteMatcher([...table].reverse())('GET', '/api/tools/built-in')).toMatchObject({
      route: { path: '/api/tools/built-in' },
    });
    // The literal route lacks PUT: the template serves it (the runtime's shadow check answers 405).
    expect(match('PUT', '/api/tools/built-in')).toEqual({
      kind: 'route',
      route: table[2],
      params: { toolId: 'built-in' },
    });
  });

  it('serves an alias, a parameter followed by literal text in its segment', () => {
    expect(match('PUT', '/api/users/u-1:password-reset')).toEqual({
      kind: 'route',
      route: table[4],
      params: { userId: 'u-1' },
    });
    expect(match('PUT', '/api/users/u-1/password-reset')).toMatchObject({ route: table[4], params: { userId: 'u-1' } });
  });

  it('decodes parameters, each one whole non-empty segment', () => {
    expect(match('GET', '/api/users/a%2Fb')).toMatchObject({ kind: 'route', params: { userId: 'a/b' } });
    expect(match('GET', `/api/users/${'x'.repeat(2000)}`)).toMatchObject({ kind: 'route' });
    expect(match('GET', '/api/users/').kind).toBe('not-found');
    expect(match('GET', '/api/users//password-reset').kind).toBe('not-found');
    expect(match('GET', '/api/users/a/b').kind).toBe('not-found');
  });

  it('answers 405 with the methods of the path in table order, 404 for an unknown path', () => {
    expect(match('DELETE', '/api/proactive-messages')).toEqual({
      kind: 'method-not-allowed',
      allowed: ['POST', 'GET'],
    });
    expect(match('HEAD', '/api/tools/x')).toEqual({ kind: 'method-not-allowed', allowed: ['GET', 'PUT'] });
    expect(match('DELETE', '/api/tools/built-in')).toEqual({ kind: 'method-not-allowed', allowed: ['GET'] });
    expect(match('GET', '/api/nowhere').kind).toBe('not-found');
    expect(match('GET', '/api/Tools/built-in').kind).toBe('not-found');
  });

  it('names no resource with a malformed escape in a parameter of the method', () => {
    expect(match('GET', '/api/users/%E0%A4%A').kind).toBe('not-found');
    expect(match('DELETE', '/api/users/%zz')).toEqual({ kind: 'method-not-allowed', allowed: ['GET'] });
  });
});

describe('route matcher: the fallback function', () => {
  const match = createRouteMatcher([
    route('POST', '/api/knowledge/bases/{kbId}/documents'),
    route('GET', '/api/knowledge/bases/{kbId}/documents'),
    route('GET', '/api/tools/built-in'),
    route('PUT', '/api/tools/{toolId}'),
  ]);

  it('lists every method served at a path, in table order, once each', () => {
    expect(match.methods('/api/knowledge/bases/k/documents')).toEqual(['POST', 'GET']);
    // The literal spelling names its own resource: the template's PUT does not serve it.
    expect(match.methods('/api/tools/built-in')).toEqual(['GET']);
    expect(match.methods('/api/tools/%zz')).toEqual(['PUT']);
    expect(match.methods('/api/knowledge/bases//documents')).toEqual([]);
  });
});

describe('route matcher: a literal spelling beside a template', () => {
  const match = createRouteMatcher([
    route('GET', '/api/users/{userId}'),
    route('DELETE', '/api/users/{userId}'),
    route('PUT', '/api/users/{userId}/password-reset', ['/api/users/{userId}:password-reset']),
  ]);

  it('serves the literal spelling only under its own methods, text beside a parameter included', () => {
    expect(match.methods('/api/users/u-1:password-reset')).toEqual(['PUT']);
    expect(match.methods('/api/users/u-1')).toEqual(['GET', 'DELETE']);
    expect(match('POST', '/api/users/u-1:password-reset')).toEqual({ kind: 'method-not-allowed', allowed: ['PUT'] });
  });

  it('says which templates can answer 405 (the API document lists it)', () => {
    expect(match.shadows(route('GET', '/api/users/{userId}'))).toBe(true);
    expect(match.shadows(route('PUT', '/api/users/{userId}/password-reset'))).toBe(false);
  });
});

describe('route matcher: each group alone', () => {
  it('finds every literal spelling beside a template of its own group (the runtime holds one group)', () => {
    const full = createRouteMatcher(deployedRoutes);
    const groups = new Map<string, ReturnType<typeof createRouteMatcher>>();
    for (const route of deployedRoutes) {
      const group =
        groups.get(route.group) ?? createRouteMatcher(deployedRoutes.filter((r) => r.group === route.group));
      groups.set(route.group, group);
      for (const spelling of [route.path, ...(route.aliases ?? [])]) {
        const path = spelling.replace(/\{[^}]+\}/g, 'x');
        for (const [name, own] of groups)
          if (own.methods(path).length) expect(own.methods(path), `${name} ${path}`).toEqual(full.methods(path));
      }
    }
  });
});

describe('route matcher: the streaming front door', () => {
  const match = createRouteMatcher([route('POST', '/v1/chat/{name}.json'), route('GET', '/v1/items/{itemId}')]);

  it('matches a path parameter as one decoded segment, and literal text literally', () => {
    expect(match('POST', '/v1/chat/a%20b.json')).toMatchObject({ kind: 'route', params: { name: 'a b' } });
    expect(match('POST', '/v1/chat/aXjson').kind).toBe('not-found');
    expect(match('GET', '/v1/items/x/y').kind).toBe('not-found');
  });

  it('tells a wrong method (405 with the allowed ones) from an unknown path, and a bad escape is not found', () => {
    expect(match('DELETE', '/v1/items/7')).toEqual({ kind: 'method-not-allowed', allowed: ['GET'] });
    expect(match('GET', '/v1/items/%zz').kind).toBe('not-found');
  });
});
