import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Reads a JSON file, or `fallback` when it does not exist yet. */
export function readJson<T>(path: string, fallback: T): T {
  if (!existsSync(path)) return fallback;
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/**
 * Writes through a temporary file and a rename, so a reader in another process (the e2e tests
 * read the server's files) never sees a half-written file.
 */
export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(tmp, path);
}

/** Runs read-modify-write steps one at a time, so concurrent callers never lose each other's update. */
export function serialized() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(step: () => T | Promise<T>): Promise<T> => {
    const run = tail.then(step);
    tail = run.catch(() => undefined);
    return run;
  };
}
