import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { spawnLocalServer } from '#local/spawn-server.ts';

export interface E2eContext {
  baseUrl: string;
  adminEmail: string;
  adminPassword: string;
  internalApiKey: string;
  /** The server's LOCAL_DATA_DIR; tests only read it (signing keys for minted tokens). */
  dataDir: string;
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
  const server = spawnLocalServer({
    LOCAL_DATA_DIR: dataDir,
    ADMIN_EMAIL: context.adminEmail,
    ADMIN_PASSWORD: context.adminPassword,
    INTERNAL_API_KEY: context.internalApiKey,
    // The local model streams word by word with a pause, so e2e tests see events arrive over time.
    LOCAL_MODEL_WORD_DELAY_MS: '25',
    // As the local run for trying tools: Browser Action reaches a page this tier serves on loopback.
    LOCAL_ALLOW_LOOPBACK_TARGETS: '1',
  });
  try {
    const baseUrl = await server.ready;
    project.provide('e2e', { ...context, baseUrl });
  } catch (err) {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    e2e: E2eContext;
  }
}
