import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { reply } from '#shared/http/responses.ts';
import { WIDGET_ASSET, widgetBuildOptions } from './widget-bundle.ts';

/** Computed so the function's bundle leaves esbuild out: only a run from source builds the widget. */
const ESBUILD = 'esbuild';
const SOURCE_ENTRY = './widget-client/main.ts';

interface Built {
  text: string;
  gzipped: string;
  etag: string;
}

/** Deployed: the file the bundling step wrote beside the bundle. From source: built now, same settings. */
async function load(): Promise<string> {
  const beside = fileURLToPath(new URL(`./${WIDGET_ASSET}`, import.meta.url));
  if (existsSync(beside)) return readFile(beside, 'utf8');
  const { build } = (await import(ESBUILD)) as typeof import('esbuild');
  const out = await build(widgetBuildOptions(fileURLToPath(new URL(SOURCE_ENTRY, import.meta.url))));
  return out.outputFiles[0]!.text;
}

let built: Promise<Built> | undefined;
/** Read (or built) and compressed once per container; a failure is tried again on the next request. */
function widget(): Promise<Built> {
  built ??= load().then(async (text) => ({
    text,
    gzipped: (await promisify(gzip)(text)).toString('base64'),
    etag: `"${createHash('sha256').update(text).digest('base64url').slice(0, 16)}"`,
  }));
  built.catch(() => {
    built = undefined;
  });
  return built;
}

/**
 * GET /api/ai/widget.js: cached by browsers and CDNs for an hour, revalidated by its ETag, gzipped
 * for clients that accept it. Its source is areas/agents/widget-client.
 */
export async function widgetScript(acceptEncoding: string | undefined) {
  const w = await widget();
  const headers = {
    'cache-control': 'public, max-age=3600',
    etag: w.etag,
    vary: 'accept-encoding',
    'x-content-type-options': 'nosniff',
    'access-control-allow-origin': '*',
  };
  const type = 'text/javascript; charset=utf-8';
  if (!/\bgzip\b/.test(acceptEncoding ?? '')) return reply.raw(type, w.text, { headers });
  return reply.raw(type, w.gzipped, { base64: true, headers: { ...headers, 'content-encoding': 'gzip' } });
}
