import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { verificationKeys } from '#shared/auth/signing-keys.ts';
import { reply } from '#shared/http/responses.ts';
import { systemRoutes } from '#areas/system/routes.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { sseEvent, streamFrontDoor } from '#shared/runtime/stream.ts';
import { DOCS_ASSETS_DIR, OPENAPI_FILE } from '#api/docs/docs-assets.ts';
import { docsAsset, docsInit, docsPage, isDocsAsset } from '#api/docs/docs-page.ts';
import { notFound } from '#shared/http/errors.ts';

const GENERATOR = '../../api/openapi/api-document.ts';
let openApiJson: Promise<string> | undefined;

/**
 * Deployed, the document sits beside the bundle (written by the bundling step, see docs-assets.ts);
 * run from source it is built from the route table on first request. The specifier is computed so
 * esbuild leaves the generator and every route table out of the bundle.
 */
async function loadOpenApi(): Promise<string> {
  const beside = fileURLToPath(new URL(`./${DOCS_ASSETS_DIR}/${OPENAPI_FILE}`, import.meta.url));
  if (existsSync(beside)) return readFile(beside, 'utf8');
  const generator = new URL(GENERATOR, import.meta.url).href;
  const { apiDocument } = (await import(generator)) as typeof import('#api/openapi/api-document.ts');
  return JSON.stringify(apiDocument());
}
function openApi(): Promise<string> {
  if (!openApiJson) {
    openApiJson = loadOpenApi();
    openApiJson.catch(() => (openApiJson = undefined));
  }
  return openApiJson;
}

const TICK_MS = 250;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function* ticks(count: number) {
  for (let n = 1; n <= count; n++) {
    if (n > 1) await sleep(TICK_MS);
    yield sseEvent({ n, status: 'ok', at: new Date().toISOString() }, 'tick');
  }
  yield sseEvent({ count }, 'done');
}

export const handler = apiHandler(systemRoutes, {
  'system.health': async () => ({ status: 'ok' }),
  'system.healthStream': async ({ query }) => reply.stream(ticks(query.count)),
  'system.jwks': async () =>
    reply.raw('application/json', JSON.stringify((await verificationKeys()).jwks), {
      headers: { 'cache-control': 'public, max-age=300' },
    }),
  'system.openapi': async () =>
    reply.raw('application/json', await openApi(), { headers: { 'cache-control': 'public, max-age=60' } }),
  'system.docs': async () => docsPage(),
  'system.docsFile': async ({ params, headers }) => {
    if (params.file === 'docs.js') return docsInit();
    if (!isDocsAsset(params.file)) throw notFound('Documentation file');
    return docsAsset(params.file, headers['accept-encoding']);
  },
});

/** The streaming front door's entry (a function URL in response-stream mode): the health stream. */
export const streamHandler = streamFrontDoor(handler, systemRoutes);
