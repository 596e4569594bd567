import type { BuildOptions } from 'esbuild';

/**
 * How widget.js is built from its source (areas/agents/widget-client, typed against the DOM by its
 * own tsconfig): one minified browser script, ES2017 so older phones run it. Deployed, the agents
 * function's bundling step writes it beside the bundle (`widgetBuildCommands`, run by lib/bundling.ts);
 * run from source (local server, tests) it is built on first request with the same settings.
 */
export const WIDGET_ENTRY = 'areas/agents/widget-client/main.ts';
export const WIDGET_ASSET = 'widget-assets/widget.js';
/** Checked by test/unit/widget-bundle.test.ts. */
export const WIDGET_GZIP_BUDGET_BYTES = 20 * 1024;

const SETTINGS = { bundle: true, format: 'iife', target: 'es2017', platform: 'browser', minify: true } as const;

export const widgetBuildOptions = (entry: string): BuildOptions & { write: false } => ({
  ...SETTINGS,
  entryPoints: [entry],
  legalComments: 'none',
  logLevel: 'warning',
  write: false,
});

/** Shell commands for NodejsFunction's `commandHooks.afterBundling(inputDir, outputDir)`. */
export const widgetBuildCommands = (inputDir: string, outputDir: string): string[] => [
  `"${inputDir}/node_modules/.bin/esbuild" "${inputDir}/${WIDGET_ENTRY}" --bundle --format=${SETTINGS.format} ` +
    `--target=${SETTINGS.target} --platform=${SETTINGS.platform} --minify --legal-comments=none --log-level=warning ` +
    `--outfile="${outputDir}/${WIDGET_ASSET}"`,
];
