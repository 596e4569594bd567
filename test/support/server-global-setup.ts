import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

export interface E2eContext {
  baseUrl: string;
  adminEmail: string;
  adminPassword: string;
  internalApiKey: string;
  /** The server's LOCAL_DATA_DIR; tests only read it (signing keys for minted tokens). */
  dataDir: string;
}

const READY = /API ready at (http:\/\/\S+)/;
const READY_TIMEOUT_MS = 90_000;

/** Resolves with the base URL once the server prints its ready line; rejects with its stderr otherwise. */
function waitForReady(child: ChildProcess): Promise<string> {
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-20_000)));
  return new Promise((resolve, reject) => {
    const fail = (why: string) => reject(new Error(`Local server ${why}.\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`));
    const timer = setTimeout(() => fail(`was not ready within ${READY_TIMEOUT_MS / 1000} s`), READY_TIMEOUT_MS);
    child.once('exit', (code, signal) => (clearTimeout(timer), fail(`exited early (code ${code}, signal ${signal})`)));
    // Keep consuming stdout after the ready line (access logs), or the server blocks on a full pipe.
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      if (stdout.length < 20_000) stdout += c;
      const url = READY.exec(stdout)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    });
  });
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(killer);
}

/** The e2e tier drives the real `npm start` server as a separate process on a free port. */
export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(join(tmpdir(), 'saas-e2e-'));
  const context: Omit<E2eContext, 'baseUrl'> = {
    adminEmail: 'e2e-admin@example.com',
    adminPassword: `E2e-${crypto.randomUUID()}`,
    internalApiKey: `e2e-${crypto.randomUUID()}`,
    dataDir,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/local-server.ts'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOCAL_DATA_DIR: dataDir,
      ADMIN_EMAIL: context.adminEmail,
      ADMIN_PASSWORD: context.adminPassword,
      INTERNAL_API_KEY: context.internalApiKey,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const baseUrl = await waitForReady(child);
    project.provide('e2e', { ...context, baseUrl });
  } catch (err) {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return async () => {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    e2e: E2eContext;
  }
}
