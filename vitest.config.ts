import { defineConfig } from 'vitest/config';
import { LongFilesFirst } from './test/support/long-files-first.ts';

process.env.AWS_SDK_JS_SUPPRESS_NODE_DEPRECATION_WARNING = '1';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
// Every tier (and the local server the e2e tier spawns) hashes passwords at scrypt N=2^12 instead of
// OWASP's 2^17; test/unit/auth-password.test.ts proves the production cost (areas/identity/password.ts).
process.env.SCRYPT_TEST_LOG2_N ??= '12';
// Every answer is checked against its route's response schema (shared/runtime/response-shape.ts).
process.env.STRICT_RESPONSES ??= '1';

const common = { setupFiles: ['test/support/env-setup.ts', 'test/support/to-answer.ts'] };

/** The tiers of the guide (unit, integration, infra, e2e, deployed) and the fresh-clone check; `npm test` runs them all. */
export default defineConfig({
  test: {
    reporters: ['default'],
    // Vitest runs one file at a time on a 2-core machine (cores - 1). Most of a file's time is spent
    // waiting on DynamoDB Local, a server or npm, and every integration file has its own table: two
    // at once. The e2e files share one local server (and its per-IP limits), so they take turns
    // (test/support/e2e-one-file-at-a-time.ts), beside the other tiers: a project with one worker of
    // its own would run after every other file, alone.
    maxWorkers: 2,
    sequence: { sequencer: LongFilesFirst },
    projects: [
      // scrypt at OWASP cost takes seconds on a busy 2-core machine: the default 5 s is too tight there.
      { test: { ...common, name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 30_000 } },
      {
        test: {
          ...common,
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/dynamo-global-setup.ts'],
          setupFiles: [...common.setupFiles, 'test/support/integration-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          ...common,
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          ...common,
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          setupFiles: [...common.setupFiles, 'test/support/e2e-one-file-at-a-time.ts'],
          globalSetup: ['test/support/browser-global-setup.ts', 'test/support/server-global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          ...common,
          name: 'deployed',
          include: ['test/deployed/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 900_000,
        },
      },
      { test: { ...common, name: 'clone', include: ['test/clone/**/*.test.ts'], testTimeout: 600_000 } },
    ],
  },
});
