import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
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
 * empty folder, installs with `npm ci` (from the npm cache when it has the packages) and passes
 * the unit tier. Uncommitted changes are not in the clone; CI runs from a clean clone anyway.
 */
describe('a fresh clone', () => {
  const parent = mkdtempSync(join(tmpdir(), 'fresh-clone-'));
  const clone = join(parent, 'repo');

  // A whole node_modules to delete: slow on a busy machine.
  afterAll(() => rm(parent, { recursive: true, force: true }), 180_000);

  it('installs with npm ci and passes the unit tier, with nothing beside it', { timeout: 600_000 }, async () => {
    await run('git', ['clone', '--quiet', '--no-hardlinks', REPO, clone]);
    expect(readdirSync(parent)).toEqual(['repo']);
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
    await run('npm', ['ci'], { cwd: clone, env, maxBuffer: 64 * 1024 * 1024 });
    const unit = await run('npx', ['vitest', 'run', '--project', 'unit'], {
      cwd: clone,
      env,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((err) => err);
    expect(unit.code ?? 0, `${unit.stdout}\n${unit.stderr}`).toBe(0);
    expect(unit.stdout).toMatch(/Tests\s+\S*\d+ passed/);
    expect(unit.stdout).not.toMatch(/failed/);
  });
});
