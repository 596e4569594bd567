import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterBundlingFor, esbuildOptionsFor } from '#lib/bundling.ts';
import { apiDocument } from '#api/openapi/api-document.ts';
import { runModuleScript } from '#test/support/run-module.ts';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The deployed system function has no node_modules: the Swagger UI files travel beside its bundle.
 * Built as the CDK builds it (`esbuildOptionsFor`, then the afterBundling commands, which copy the
 * files and write the OpenAPI document) into a folder outside the repository, and run in a fresh Node process there, so nothing
 * can come from node_modules.
 */
describe('system function bundle', () => {
  let dir: string;
  let outfile: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'system-bundle-'));
    outfile = join(dir, 'index.mjs');
    await build({ ...esbuildOptionsFor(join(ROOT, 'functions/system/index.ts')), outfile, logLevel: 'error' });
    for (const command of afterBundlingFor('system')(ROOT, dir)) await run('sh', ['-c', command]);
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the bundled handler on one API Gateway event in a child process. */
  async function call(request: string, headers: Record<string, string> = {}) {
    const [method = '', path = ''] = request.split(' ');
    const file = path.startsWith('/api/docs/') ? path.slice('/api/docs/'.length) : undefined;
    const event = {
      version: '2.0',
      routeKey: file ? `${method} /api/docs/{file}` : request,
      ...(file ? { pathParameters: { file } } : {}),
      rawPath: path,
      rawQueryString: '',
      headers,
      requestContext: { http: { method, path, sourceIp: '127.0.0.1' }, requestId: 'r1' },
      isBase64Encoded: false,
    };
    const script = `const { handler } = await import(${JSON.stringify(pathToFileURL(outfile).href)});
const res = await handler(${JSON.stringify(event)}, { awsRequestId: 'r1', getRemainingTimeInMillis: () => 30000 });
process.stdout.write(JSON.stringify(res));`;
    return runModuleScript<{
      statusCode: number;
      headers: Record<string, string>;
      body: string;
      isBase64Encoded?: boolean;
    }>(script, dir, {
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_SUPPRESS_NODE_DEPRECATION_WARNING: '1',
      LOG_LEVEL: 'SILENT',
    });
  }

  it("keeps the Swagger UI files and the other groups' route tables out of the JS bundle", () => {
    const bundle = readFileSync(outfile, 'utf8');
    // A class name that both Swagger UI files use and nothing of ours does.
    expect(bundle).not.toContain('opblock-summary-control');
    expect(bundle).not.toContain('/api/bcm/admin');
  });

  it('serves the Swagger UI files copied beside the bundle', async () => {
    const js = await call('GET /api/docs/swagger-ui-bundle.js');
    const css = await call('GET /api/docs/swagger-ui.css');
    expect(js.statusCode).toBe(200);
    expect(js.body).toBe(readFileSync(require.resolve('swagger-ui-dist/swagger-ui-bundle.js'), 'utf8'));
    expect(css.body).toBe(readFileSync(require.resolve('swagger-ui-dist/swagger-ui.css'), 'utf8'));
    console.info(`system bundle: ${(statSync(outfile).size / 1024).toFixed(0)} KB`);
  }, 60_000);

  it("serves the document written beside the bundle: the route table's", async () => {
    const res = await call('GET /api/openapi.json');
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual(apiDocument());
  }, 60_000);
});
