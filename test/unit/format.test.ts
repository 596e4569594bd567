import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIOME = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');

test('every source file is as Biome formats it and passes its lint rules (`npm run format`, `npm run lint`)', () => {
  const run = spawnSync(process.execPath, [BIOME, 'check', '--error-on-warnings', '--max-diagnostics=5', '.'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const output = `${run.stdout}\n${run.stderr}`;
  expect(run.status, output).toBe(0);
  // Findings of info level leave the exit status at 0 even with --error-on-warnings.
  expect(output, output).not.toMatch(/Found \d+ infos?/);
});
