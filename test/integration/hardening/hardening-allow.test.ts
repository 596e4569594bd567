import { describe, expect, it } from 'vitest';
import { deployedRoutes } from '#api/routes.ts';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { invoke } from '#test/support/invoke.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const ID = '6f1c2a7e-3b4d-4c5e-8f9a-0b1c2d3e4f5a';

/** A path of a spelling: every parameter a UUID (text beside a parameter stays). */
const sample = (spelling: string) => spelling.replace(/\{[^}]+\}/g, ID);

const spellings = deployedRoutes.flatMap((route) => [route.path, ...(route.aliases ?? [])].map((s) => ({ route, s })));
const fits = new Map<RouteDef, ReturnType<typeof createRouteMatcher>>(
  deployedRoutes.map((r) => [r, createRouteMatcher([r])]),
);

/**
 * Every path where a literal spelling sits beside a template of another shape: the paths of the
 * literal spellings that some other deployed route also fits. Generated from the table, so a new
 * pair is tested without a line here.
 */
const SHADOWED_PATHS = [
  ...new Set(
    spellings
      .map(({ s }) => sample(s))
      .filter((path) => {
        const shapes = new Set(
          deployedRoutes
            .filter((r) => fits.get(r)!.methods(path).length)
            .map((r) => r.path.replace(/\{[^}]+\}/g, '{}')),
        );
        return shapes.size > 1;
      }),
  ),
];

describe('a path where a literal spelling sits beside a template', () => {
  it('is generated from the table and holds the known pairs', () => {
    expect(SHADOWED_PATHS).toEqual(
      expect.arrayContaining([
        '/api/tools/built-in',
        `/api/secrets/sync/${ID}`,
        `/api/users/${ID}:password-reset`,
        `/api/knowledge/bases/${ID}/documents/presigned-upload`,
        `/api/content/admin/sites/${ID}/pages/validate-slug`,
        `/api/bcm/admin/bia/${ID}/entries/${ID}/complete`,
      ]),
    );
  });

  // Without credentials a served method answers 401 (or its own 4xx), a refused one 405: the
  // method check runs first, whoever answers (the group's runtime or the `$default` fallback).
  it.each(SHADOWED_PATHS)('%s: Allow lists exactly the methods that are served there', async (path) => {
    const answers = await Promise.all(
      METHODS.map(async (method) => ({ method, res: await invoke(method, path, { rawBody: '{}' }) })),
    );
    const served = answers.filter((a) => a.res.status !== 405).map((a) => a.method);
    const refused = answers.filter((a) => a.res.status === 405);
    expect(served.length, `${path}: some method is served`).toBeGreaterThan(0);
    for (const { method, res } of answers) expect(res.status, `${method} ${path}`).not.toBe(404);
    for (const { method, res } of refused) {
      expect(res.json, `${method} ${path}`).toMatchObject({ success: false, error: { code: 'METHOD_NOT_ALLOWED' } });
      const allow = String(res.headers.allow ?? res.headers.Allow ?? '')
        .split(/,\s*/)
        .filter(Boolean);
      expect(allow.sort(), `Allow of ${method} ${path}`).toEqual([...served].sort());
    }
  });

  it("answers GET of a user's password-reset spelling 405, allowing PUT", async () => {
    const res = await invoke('GET', `/api/users/${ID}:password-reset`);
    expect(res).toAnswer(405);
    expect(res.headers.allow).toBe('PUT');
  });
});
