import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const READY = /API ready at (http:\/\/\S+)/;
const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface SpawnedServer {
  child: ChildProcess;
  /** The base URL once the server prints its ready line; rejects with its output otherwise. */
  ready: Promise<string>;
  logs(): { stdout: string; stderr: string };
  stop(): Promise<void>;
}

/**
 * `npm start`'s server as a separate process on a free loopback port (e2e tests, the load run).
 * Its stdout keeps being read after the ready line, or the server would block on a full pipe.
 */
export function spawnLocalServer(env: Record<string, string>, readyTimeoutMs = 90_000): SpawnedServer {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/local-server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-20_000)));
  const ready = new Promise<string>((resolve, reject) => {
    const fail = (why: string) =>
      reject(new Error(`Local server ${why}.\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`));
    const timer = setTimeout(() => fail(`was not ready within ${readyTimeoutMs / 1000} s`), readyTimeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(`exited early (code ${code}, signal ${signal})`);
    });
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      if (stdout.length < 20_000) stdout += c;
      const url = READY.exec(stdout)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    });
  });
  ready.catch(() => undefined);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(killer);
  };
  return { child, ready, logs: () => ({ stdout, stderr }), stop };
}
