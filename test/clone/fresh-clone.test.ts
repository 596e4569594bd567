import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The proof that the repository needs nothing beside it: the committed HEAD, cloned alone into an
 * empty folder, installs with `npm ci` (from the npm cache when it has the packages) and serves the
 * API with `npm start`, the README's first command (CI runs the second, `npm test`, on a clean clone
 * itself), and runs the real-PostgreSQL tests from a folder others cannot enter. Uncommitted changes
 * are not in the clone.
 */
function cloneEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CI: '1',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_prefer_offline: 'true',
  };
  delete env.VITEST;
  delete env.VITEST_POOL_ID;
  delete env.VITEST_WORKER_ID;
  delete env.NODE_OPTIONS;
  return env;
}

describe('a fresh clone', () => {
  const parent = mkdtempSync(join(tmpdir(), 'fresh-clone-'));
  const clone = join(parent, 'repo');

  // A whole node_modules to delete: slow on a busy machine.
  afterAll(() => rm(parent, { recursive: true, force: true }), 180_000);

  it('installs with npm ci and serves the API with npm start, with nothing beside it', {
    timeout: 600_000,
  }, async () => {
    await run('git', ['clone', '--quiet', '--no-hardlinks', REPO, clone]);
    expect(readdirSync(parent)).toEqual(['repo']);
    const env = cloneEnv();
    await run('npm', ['ci'], { cwd: clone, env, maxBuffer: 64 * 1024 * 1024 });
    const server = spawn('npm', ['start'], {
      cwd: clone,
      env: { ...env, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    server.stdout.setEncoding('utf8').on('data', (c: string) => (output = (output + c).slice(-20_000)));
    server.stderr.setEncoding('utf8').on('data', (c: string) => (output = (output + c).slice(-20_000)));
    try {
      const baseUrl = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`npm start was not ready in 120 s:\n${output}`)), 120_000);
        server.once('exit', (code) => reject(new Error(`npm start exited (${code}):\n${output}`)));
        server.stdout.on('data', () => {
          const url = /API ready at (http:\/\/\S+)/.exec(output)?.[1];
          if (url) {
            clearTimeout(timer);
            resolve(url);
          }
        });
      });
      const health = await fetch(`${baseUrl}/api/health`);
      expect(health.status, output).toBe(200);
      expect((await fetch(`${baseUrl}/api/docs`)).status).toBe(200);
      const unknown = await fetch(`${baseUrl}/api/no-such-route`);
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('ROUTE_NOT_FOUND');
    } finally {
      const exited = new Promise((r) => server.once('exit', r));
      process.kill(-server.pid!, 'SIGTERM');
      await exited;
    }
  });

  // mkdtemp made the parent 0700: as root, the embedded PostgreSQL runs its binaries as the postgres
  // user, who cannot enter it (test/support/real-postgres.ts).
  it('runs the real-PostgreSQL tests from a folder only its owner can enter', { timeout: 300_000 }, async () => {
    expect(statSync(parent).mode & 0o777).toBe(0o700);
    const { stdout } = await run(
      'npx',
      ['vitest', 'run', '--project', 'unit', 'test/unit/ai-tools-database-server.test.ts'],
      { cwd: clone, env: cloneEnv(), maxBuffer: 64 * 1024 * 1024 },
    ).catch((err: { stdout?: string; stderr?: string }) => {
      throw new Error(`vitest failed in the clone:\n${err.stdout}\n${err.stderr}`);
    });
    expect(stdout).toMatch(/Test Files\s+1 passed/);
  });
});
