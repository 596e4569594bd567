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

/** A function's bundling: BUNDLING, plus the files it reads at run time copied beside its bundle. */
export function bundlingFor(name: string): BundlingOptions {
  if (name !== 'system') return BUNDLING;
  return {
    ...BUNDLING,
    commandHooks: { beforeBundling: () => [], beforeInstall: () => [], afterBundling: copyDocsAssetsCommands },
  };
}

/**
 * The esbuild options the CDK uses for `BUNDLING` (see aws-lambda-nodejs `buildEsbuildArgs`):
 * `--bundle --platform=node --target --format --minify --main-fields --banner:js`, no externals,
 * no source map. The caller adds `outfile` (the CDK writes `index.mjs`).
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
    external: [...BUNDLING.externalModules],
    banner: { js: BUNDLING.banner },
  };
}
