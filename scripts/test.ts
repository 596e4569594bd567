import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * `npm test`: the type check and the test tiers at once. tsc works on one core for about 40 s; run
 * first, the whole run waited for it, while beside vitest it fills the moments the test workers wait
 * on DynamoDB Local, servers and npm. tsc's output is held and printed after vitest's; the run fails
 * when either does. Arguments go to vitest (`npm test -- --project unit`).
 */
const bin = (path: string) => fileURLToPath(new URL(`../node_modules/${path}`, import.meta.url));
const run = (args: string[], quiet: boolean) => {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', quiet ? 'pipe' : 'inherit', quiet ? 'pipe' : 'inherit'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  return new Promise<{ code: number; output: string }>((done) =>
    child.on('close', (code) => done({ code: code ?? 1, output })),
  );
};

const typecheck = run([bin('typescript/bin/tsc'), '--noEmit'], true);
const tests = await run([bin('vitest/vitest.mjs'), 'run', ...process.argv.slice(2)], false);
const types = await typecheck;
process.stdout.write(types.code ? `\nType check failed:\n${types.output}\n` : '\nType check: no errors.\n');
process.exit(tests.code || types.code);
