import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateClientTypes } from '#test/contract/generate-client.ts';
import type { Story } from '#test/contract/story.ts';
import { e2e } from '#test/support/e2e.ts';

/**
 * A client generated from the OpenAPI document (openapi-typescript) drives one story
 * per area through openapi-fetch against the local server. The stories are type-checked against
 * the freshly generated types first, so a document that drifts from the handlers fails to
 * compile here, or fails when the story runs. Add an area's story as `test/contract/stories/<area>.ts`.
 */
const run = promisify(execFile);
const CONTRACT_TSCONFIG = fileURLToPath(new URL('../contract/tsconfig.json', import.meta.url));
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
const STORIES = new URL('../contract/stories/', import.meta.url);
const areas = readdirSync(STORIES)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3));

let session: Promise<string> | undefined;
const adminSession = () =>
  (session ??= (async () => {
    const { baseUrl, adminEmail, adminPassword } = e2e();
    const res = await fetch(`${baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: adminEmail, password: adminPassword }),
    });
    const body = (await res.json()) as { result?: { accessToken?: string } };
    if (!body.result?.accessToken) throw new Error(`admin sign-in: ${res.status} ${JSON.stringify(body)}`);
    return body.result.accessToken;
  })());

describe('typed client generated from the OpenAPI document', () => {
  beforeAll(async () => {
    await generateClientTypes();
  }, 60_000);

  it('type-checks every story against the generated client', { timeout: 120_000 }, async () => {
    const out = await run(process.execPath, [TSC, '--noEmit', '-p', CONTRACT_TSCONFIG]).catch(
      (err: { stdout: string; stderr: string }) => err,
    );
    expect(`${out.stdout}${out.stderr}`.trim()).toBe('');
    expect(areas.length).toBeGreaterThan(0);
  });

  it.each(areas)('story: %s', async (area) => {
    const { story } = (await import(new URL(`${area}.ts`, STORIES).href)) as { story: Story };
    const { baseUrl, adminEmail, adminPassword, internalApiKey } = e2e();
    const { makeClient } = await import('#test/contract/story.ts');
    await story({
      client: makeClient(baseUrl),
      baseUrl,
      adminEmail,
      adminPassword,
      adminSession,
      internalApiKey,
      tag: crypto.randomUUID().slice(0, 8),
    });
  });
});
