import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import * as z from 'zod/mini';
import { describe, expect, it, vi } from 'vitest';
import { esbuildOptionsFor } from '#lib/bundling.ts';
import { defineRoutes, once, type RouteDef } from '#shared/routes/types.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('route schemas', () => {
  it('are built when the route is first read, once, and not for the other routes', () => {
    const a = vi.fn(() => ({ params: z.object({ id: z.string() }), body: z.object({ name: z.string() }) }));
    const b = vi.fn(() => ({ query: z.object({}) }));
    const [first, second, bare] = defineRoutes([
      {
        id: 'a',
        method: 'PUT',
        path: '/a/{id}',
        group: 'system',
        auth: { kind: 'none' },
        scope: { kind: 'public' },
        summary: '',
        status: 200,
        schemas: a,
      },
      {
        id: 'b',
        method: 'GET',
        path: '/b',
        group: 'system',
        auth: { kind: 'none' },
        scope: { kind: 'public' },
        summary: '',
        status: 200,
        schemas: b,
      },
      {
        id: 'c',
        method: 'GET',
        path: '/c',
        group: 'system',
        auth: { kind: 'none' },
        scope: { kind: 'public' },
        summary: '',
        status: 204,
      },
    ]);
    expect(a).not.toHaveBeenCalled();
    const body = first.body;
    expect(z.safeParse(body, { name: 'x' }).success).toBe(true);
    expect(first.params).toBeDefined();
    expect(first.body).toBe(body);
    expect((first as RouteDef).query).toBeUndefined();
    expect(a).toHaveBeenCalledTimes(1);
    expect(b).not.toHaveBeenCalled();
    expect(second.id).toBe('b');
    expect((bare as RouteDef).body).toBeUndefined();
  });

  it('shared through once() are built on first use and kept', () => {
    const make = vi.fn(() => z.string());
    const shared = once(make);
    expect(make).not.toHaveBeenCalled();
    expect(shared()).toBe(shared());
    expect(make).toHaveBeenCalledTimes(1);
  });

  // The bundle as the CDK builds it, imported in a fresh process that counts zod objects made.
  it('are not built when a function is imported (cold start)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lazy-schemas-'));
    try {
      const outfile = join(dir, 'index.mjs');
      await build({ ...esbuildOptionsFor(join(ROOT, 'functions/content-admin/index.ts')), outfile, logLevel: 'error' });
      const script = `let made = 0; const define = Object.defineProperty;
Object.defineProperty = function (o, p, d) { if (p === '_zod') made++; return define.call(this, o, p, d); };
await import(${JSON.stringify(pathToFileURL(outfile).href)});
process.stdout.write(String(made));`;
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, AWS_REGION: 'us-east-1' },
      });
      // One shared constant (the null result); the 39 content routes' schemas wait for their request.
      expect(Number(stdout)).toBeLessThan(5);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
