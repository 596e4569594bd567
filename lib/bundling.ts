import { OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import { basename, dirname } from 'node:path';
import { copyDocsAssetsCommands } from '#api/docs/docs-assets.ts';
import { widgetBuildCommands } from '#areas/agents/widget-bundle.ts';

/**
 * How every Lambda bundle is built, in one place: the stack passes `BUNDLING` to each
 * NodejsFunction, and the benchmark builds with `esbuildOptionsFor`, the same settings spelled as
 * esbuild options (what the CDK turns `BUNDLING` into on the esbuild command line).
 */

/** ESM output has no `require`; a few bundled CommonJS dependencies call it. */
export const REQUIRE_BANNER =
  "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";

export const NODE_TARGET = 'node24';

const WEB_STREAMS = 'node:stream/web';
/** Relative to the project root, where the CDK (and the bench) run esbuild. */
const WEB_STREAMS_STAND_IN = './shared/runtime/web-streams-on-first-use.ts';

export const BUNDLING = {
  format: OutputFormat.ESM,
  target: NODE_TARGET,
  mainFields: ['module', 'main'],
  minify: true,
  sourceMap: false,
  // Nothing external: the AWS SDK v3 is bundled (smaller and faster to load than the runtime's copy).
  externalModules: [] as string[],
  banner: REQUIRE_BANNER,
  // Node's web streams load when first used, not at import (shared/runtime/web-streams-on-first-use.ts).
  esbuildArgs: { [`--alias:${WEB_STREAMS}`]: WEB_STREAMS_STAND_IN },
} satisfies BundlingOptions;

/**
 * Packages a function loads only on first use (`await import(...)`): PDF rendering, HTML
 * sanitizing, multipart parsing. Inlined in the bundle, their code would be parsed at every cold
 * start (pdf-lib alone is 440 KB). They stay external, and afterBundling builds each into
 * `node_modules/<package>/index.mjs` beside the bundle with the same esbuild settings, so the asset
 * still carries everything the function runs and `cdk synth` needs no npm install (offline).
 */
/**
 * What every function that calls models through the gateway (areas/llm-gateway) loads on first use:
 * the tokenizer (2 MB of rank tables), the Bedrock client, the server-sent event parser of
 * OpenAI-compatible streams, and the JSON Schema validator of structured outputs with its formats.
 */
const GATEWAY_ON_FIRST_USE = [
  'gpt-tokenizer',
  '@aws-sdk/client-bedrock-runtime',
  'eventsource-parser',
  'ajv',
  'ajv-formats',
] as const;

/** The official MCP client, loaded when an agent first calls a tenant's MCP server tool (areas/tools/mcp/client.ts). */
const MCP_CLIENT = '@modelcontextprotocol/client';

const AGENT_TURNS = ['@aws-sdk/client-s3vectors', ...GATEWAY_ON_FIRST_USE, 'pg', MCP_CLIENT];

export const LAZY_PACKAGES: Readonly<Record<string, readonly string[]>> = {
  // Invoices are the only S3 use of these two (`s3OnFirstUse`).
  billing: ['pdf-lib', '@aws-sdk/client-s3'],
  'webhook-worker': ['pdf-lib', '@aws-sdk/client-s3'],
  'content-admin': ['sanitize-html', 'busboy'],
  // An MCP Server tool's refresh reads the server's tools.
  tools: [MCP_CLIENT],
  // AI knowledge: S3 Vectors loads on first use; the parsers only in the worker.
  // MCP's server side only for the knowledge MCP endpoint.
  knowledge: ['busboy', '@aws-sdk/client-s3vectors', ...GATEWAY_ON_FIRST_USE, '@modelcontextprotocol/server'],
  // Sources' syncs: robots.txt and the article reader load only when a sync runs.
  'knowledge-worker': [
    'unpdf',
    'mammoth',
    'html-to-text',
    'robots-parser',
    'linkedom',
    '@mozilla/readability',
    '@aws-sdk/client-s3vectors',
    ...GATEWAY_ON_FIRST_USE,
  ],
  'llm-gateway': [...GATEWAY_ON_FIRST_USE],
  // Every function that runs agent turns: retrieval's and the gateway's first-use packages, and the
  // database tools' client (pg, 84 KB with its dependencies, loads Node's fetch implementation at import).
  'agent-runtime': AGENT_TURNS,
  conversations: AGENT_TURNS,
  'channel-turn-worker': AGENT_TURNS,
  // It resumes the turns whose held calls expired.
  'ai-scheduler': AGENT_TURNS,
};

/**
 * The credential sources the SDK's default chain loads itself with `import()` when the environment
 * holds no credentials (profiles, SSO, a process, a web identity token, a container or instance
 * endpoint) and the nested STS, SSO and sign-in clients they call. On Lambda the environment holds
 * the credentials, so none of them ever loads; inlined, about 100 KB of them were parsed at every
 * cold start. Beside the bundle they still work wherever the chain reaches them.
 */
export const SDK_CREDENTIAL_SOURCES: readonly string[] = [
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-web-identity',
  '@aws-sdk/credential-provider-http',
  '@smithy/credential-provider-imds',
];

/**
 * Packages every function reaches only through `await import(...)`: the AWS SDK clients behind the
 * ports (SQS behind the queue port, SES behind the mailer), Powertools Metrics (loaded by the first
 * publish that has a count), jose, and the SDK's own credential sources. Inlined, their code would be
 * parsed at every cold start whether used or not; beside the bundle, a function pays for one on first
 * use. The importing modules load them by name with a dynamic import (`shared/platform/lazy-sdk.ts`):
 * esbuild hoists a static import of an external package to the top. SSM is not among them: every
 * first request that carries a token reads the signing keys through it, and beside the bundle it
 * carried a second copy of the SDK's core (shared/platform/aws-params.ts imports it by name).
 */
export const LAZY_EVERYWHERE: readonly string[] = [
  '@aws-sdk/client-sqs',
  '@aws-sdk/client-ses',
  '@aws-lambda-powertools/metrics',
  // Loaded with the signing keys by the first request that carries a token (shared/auth/signing-keys.ts).
  'jose',
  ...SDK_CREDENTIAL_SOURCES,
];

export const lazyPackagesOf = (name: string): readonly string[] =>
  name === 'fallback' ? [] : [...(LAZY_PACKAGES[name] ?? []), ...LAZY_EVERYWHERE];

/** Shell commands that build `packages` into `<outputDir>/node_modules` (one ESM file each). */
export const lazyPackageCommands =
  (packages: readonly string[]) =>
  (inputDir: string, outputDir: string): string[] =>
    packages.flatMap((pkg) => {
      const dir = `${outputDir}/node_modules/${pkg}`;
      return [
        `"${inputDir}/node_modules/.bin/esbuild" ${pkg} --bundle --platform=node --format=esm --target=${NODE_TARGET} --minify ` +
          `--main-fields=${BUNDLING.mainFields.join(',')} "--banner:js=${BUNDLING.banner}" --log-level=warning --outfile="${dir}/index.mjs"`,
        `echo '{"type":"module","main":"index.mjs"}' > "${dir}/package.json"`,
      ];
    });

/**
 * The Browser Action function carries Chromium itself, no Lambda layer to version beside the stack:
 * `playwright-core` copied whole (no dependencies; esbuild cannot bundle its run-time file reads),
 * and `@sparticuz/chromium`'s compressed binaries (about 64 MB; unpacked to /tmp on a cold start)
 * in `chromium-bin/`, where areas/tools/browser/chromium.ts looks for them. The package's own code
 * is bundled. No other function has either (test/infra/bundles-browser.test.ts).
 */
export const BROWSER_EXTERNALS = ['playwright-core'] as const;
export const browserAssetCommands = (inputDir: string, outputDir: string): string[] => [
  `mkdir -p "${outputDir}/node_modules"`,
  `cp -R "${inputDir}/node_modules/playwright-core" "${outputDir}/node_modules/playwright-core"`,
  `cp -R "${inputDir}/node_modules/@sparticuz/chromium/bin" "${outputDir}/chromium-bin"`,
];

/** What runs after esbuild for a function: the files it reads at run time and its lazy packages. */
export const afterBundlingFor =
  (name: string) =>
  (inputDir: string, outputDir: string): string[] => [
    ...(name === 'system' ? copyDocsAssetsCommands(inputDir, outputDir) : []),
    ...(name === 'browser-action' ? browserAssetCommands(inputDir, outputDir) : []),
    ...(name === 'agents' ? widgetBuildCommands(inputDir, outputDir) : []),
    ...lazyPackageCommands(lazyPackagesOf(name))(inputDir, outputDir),
  ];

/** A function's bundling: BUNDLING, its lazy packages external, then `afterBundlingFor`. */
export function bundlingFor(name: string): BundlingOptions {
  const lazy = lazyPackagesOf(name);
  if (name !== 'system' && !lazy.length) return BUNDLING;
  return {
    ...BUNDLING,
    externalModules: [...lazy, ...(name === 'browser-action' ? BROWSER_EXTERNALS : [])],
    commandHooks: { beforeBundling: () => [], beforeInstall: () => [], afterBundling: afterBundlingFor(name) },
  };
}

/**
 * The esbuild options the CDK uses for `bundlingFor(name)` (see aws-lambda-nodejs
 * `buildEsbuildArgs`): `--bundle --platform=node --target --format --minify --main-fields
 * --banner:js --alias`, the lazy packages external, no source map. The caller adds `outfile` (the CDK
 * writes `index.mjs`) and runs `afterBundlingFor(name)`.
 */
export function esbuildOptionsFor(entry: string, name = basename(dirname(entry))): BuildOptions {
  return {
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: BUNDLING.target,
    format: 'esm',
    mainFields: [...BUNDLING.mainFields],
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    external: [...(bundlingFor(name).externalModules ?? [])],
    banner: { js: BUNDLING.banner },
    alias: { [WEB_STREAMS]: WEB_STREAMS_STAND_IN },
  };
}
