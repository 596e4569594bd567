import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIOME = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');

test('every source file is as Biome formats it (`npm run format` rewrites them)', () => {
  const run = spawnSync(process.execPath, [BIOME, 'format', '--max-diagnostics=5', '.'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
});
