import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isLoopback, listenRefusal } from '#local/listen-guard.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the local server listens on loopback unless told otherwise', () => {
  it('knows loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopback(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '128.0.0.1'])
      expect(isLoopback(h), h).toBe(false);
  });

  it('refuses any other address without LOCAL_ALLOW_REMOTE=1, and says why', () => {
    expect(listenRefusal('127.0.0.1', {})).toBeNull();
    expect(listenRefusal('0.0.0.0', {})).toMatch(/\/_local\/.*LOCAL_ALLOW_REMOTE=1/);
    expect(listenRefusal('0.0.0.0', { LOCAL_ALLOW_REMOTE: '1' })).toBeNull();
  });

  it('npm start exits at once with that message for HOST=0.0.0.0', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/local-server.ts'], {
      cwd: ROOT,
      env: { ...process.env, HOST: '0.0.0.0', PORT: '0', LOCAL_ALLOW_REMOTE: '' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/LOCAL_ALLOW_REMOTE=1/);
  });
});
