import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Runs an ES module script in a fresh Node process from `dir`, with no NODE_PATH (packages resolve
 * from the folder's own node_modules, as beside a deployed bundle), and parses what it writes to
 * stdout as JSON.
 */
export async function runModuleScript<T = unknown>(script: string, dir: string, env: Record<string, string> = {}) {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: dir,
    env: { ...process.env, NODE_PATH: '', ...env },
    maxBuffer: 64 << 20,
  });
  return JSON.parse(stdout) as T;
}
