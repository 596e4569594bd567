import { OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import { copyDocsAssetsCommands } from '../functions/system/docs-assets.ts';

/**
 * How every Lambda bundle is built, in one place: the stack passes `BUNDLING` to each
 * NodejsFunction, and the benchmark builds with `esbuildOptionsFor`, the same settings spelled as
 * esbuild options (what the CDK turns `BUNDLING` into on the esbuild command line).
 */

/** ESM output has no `require`; a few bundled CommonJS dependencies call it. */
export const REQUIRE_BANNER = "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";

export const NODE_TARGET = 'node24';

export const BUNDLING = {
  format: OutputFormat.ESM,
  target: NODE_TARGET,
  mainFields: ['module', 'main'],
  minify: true,
  sourceMap: false,
  // Nothing external: the AWS SDK v3 is bundled (smaller and faster to load than the runtime's copy).
  externalModules: [] as string[],
  banner: REQUIRE_BANNER,
} satisfies BundlingOptions;

/**
 * Large dependencies a function loads only on first use (`await import()`), installed beside the
 * bundle (the CDK's `nodeModules`) instead of bundled: esbuild keeps a dynamic import's code in the
 * single output file, and V8 parses it at every cold start even though it never runs there
 * (measured with `npm run bench:cold`: pdf-lib about 26 ms of import, sanitize-html about 17 ms).
 * The first request that needs one pays for loading it.
 */
export const FIRST_USE_MODULES: Readonly<Record<string, readonly string[]>> = {
  billing: ['pdf-lib'],
  'webhook-worker': ['pdf-lib'],
  'content-admin': ['sanitize-html'],
};

/** A function's bundling: BUNDLING, its first-use modules, and the files it reads at run time copied beside its bundle. */
export function bundlingFor(name: string): BundlingOptions {
  const firstUse = FIRST_USE_MODULES[name];
  const bundling: BundlingOptions = firstUse ? { ...BUNDLING, nodeModules: [...firstUse] } : BUNDLING;
  if (name !== 'system') return bundling;
  return {
    ...bundling,
    commandHooks: { beforeBundling: () => [], beforeInstall: () => [], afterBundling: copyDocsAssetsCommands },
  };
}

/** `functions/<name>/index.ts` -> name. */
const functionName = (entry: string) => /functions[\\/]([^\\/]+)[\\/]index\.ts$/.exec(entry)?.[1] ?? '';

/**
 * The esbuild options the CDK uses for `BUNDLING` (see aws-lambda-nodejs `buildEsbuildArgs`):
 * `--bundle --platform=node --target --format --minify --main-fields --banner:js`, no externals,
 * no source map, the function's `nodeModules` external. The caller adds `outfile` (the CDK writes `index.mjs`).
 */
export function esbuildOptionsFor(entry: string): BuildOptions {
  return {
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: BUNDLING.target,
    format: 'esm',
    mainFields: [...BUNDLING.mainFields],
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    // The CDK makes `nodeModules` external.
    external: [...BUNDLING.externalModules, ...(FIRST_USE_MODULES[functionName(entry)] ?? [])],
    banner: { js: BUNDLING.banner },
  };
}
