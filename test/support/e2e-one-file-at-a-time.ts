import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';

/**
 * The e2e files share one local server (and its per-IP limits), so only one of them talks to it at
 * a time; they still run in the same pool as the other tiers (a project of its own with one worker
 * would run after every other file, on one core). The lock is a directory in the server's data
 * folder: mkdir is atomic, and a lock whose process is gone (a crashed worker) is taken over.
 */
const lock = join(inject('e2e').dataDir, '.e2e-file-lock');
const owner = join(lock, 'pid');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function tryTake(): boolean {
  try {
    mkdirSync(lock);
  } catch {
    let pid = Number.NaN;
    try {
      pid = Number(readFileSync(owner, 'utf8'));
    } catch {
      // Taken a moment ago and its pid not written yet: wait for it.
      return false;
    }
    if (alive(pid)) return false;
    rmSync(lock, { recursive: true, force: true });
    return false;
  }
  writeFileSync(owner, String(process.pid));
  return true;
}

beforeAll(async () => {
  while (!tryTake()) await new Promise((r) => setTimeout(r, 50));
}, 300_000);

afterAll(() => {
  rmSync(lock, { recursive: true, force: true });
});
