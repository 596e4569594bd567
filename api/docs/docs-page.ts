import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { reply, type RawReply } from '#shared/http/responses.ts';
import { DOCS_ASSETS_DIR, type DocsAssetName } from './docs-assets.ts';

/**
 * The API reference page: Swagger UI from the `swagger-ui-dist` package, served by this function
 * (no CDN). Paths are relative, so the page works under any stage prefix: `/api/docs` loads
 * `docs/swagger-ui.css`, `docs/swagger-ui-bundle.js`, `docs/docs.js`, and the document `openapi.json`.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/docs.js"></script>
</body>
</html>
`;

/** validatorUrl null: Swagger UI would otherwise send the document to an outside validator. */
const INIT = `window.ui = SwaggerUIBundle({
  url: 'openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
  displayRequestDuration: true,
  filter: true,
  validatorUrl: null,
});
`;

/** Scripts only from this origin; Swagger UI sets inline styles and data: images. */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-cache',
};

export const docsPage = (): RawReply => reply.raw('text/html; charset=utf-8', PAGE, { headers: PAGE_HEADERS });
export const docsInit = (): RawReply =>
  reply.raw('text/javascript; charset=utf-8', INIT, {
    headers: { 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' },
  });

type AssetName = DocsAssetName;

/**
 * Deployed, the files sit in `docs-assets/` beside the bundle (copied by the bundling step); run
 * from source (tsx, vitest, the local server) they are read from the swagger-ui-dist package.
 */
async function loadAsset(name: AssetName): Promise<string> {
  const beside = fileURLToPath(new URL(`./${DOCS_ASSETS_DIR}/${name}`, import.meta.url));
  if (existsSync(beside)) return readFile(beside, 'utf8');
  try {
    return await readFile(createRequire(import.meta.url).resolve(`swagger-ui-dist/${name}`), 'utf8');
  } catch (err) {
    throw new Error(
      `Swagger UI file ${name} is neither beside the bundle nor in node_modules (see copyDocsAssetsCommands)`,
      { cause: err },
    );
  }
}

const gzipAsync = promisify(gzip);

const CONTENT_TYPES: Record<AssetName, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

export const isDocsAsset = (name: string): name is AssetName => Object.hasOwn(CONTENT_TYPES, name);

const texts = new Map<AssetName, Promise<string>>();
const gzipped = new Map<AssetName, Promise<string>>();

/** Read once per container; a failed read is retried on the next request. */
function memo(map: Map<AssetName, Promise<string>>, name: AssetName, load: () => Promise<string>): Promise<string> {
  let entry = map.get(name);
  if (!entry) {
    entry = load();
    map.set(name, entry);
    entry.catch(() => map.delete(name));
  }
  return entry;
}

const HEADERS = {
  'cache-control': 'public, max-age=86400',
  'x-content-type-options': 'nosniff',
  vary: 'accept-encoding',
};

/** The bundle is 1.7 MB, about 0.5 MB gzipped: compressed once per container for clients that accept gzip. */
export async function docsAsset(name: AssetName, acceptEncoding: string | undefined): Promise<RawReply> {
  const text = await memo(texts, name, () => loadAsset(name));
  if (!/\bgzip\b/.test(acceptEncoding ?? '')) return reply.raw(CONTENT_TYPES[name], text, { headers: HEADERS });
  const body = await memo(gzipped, name, async () => (await gzipAsync(text)).toString('base64'));
  return reply.raw(CONTENT_TYPES[name], body, { base64: true, headers: { ...HEADERS, 'content-encoding': 'gzip' } });
}
