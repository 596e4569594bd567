/**
 * Swagger UI's files are served by the system function but kept out of its JS bundle: inlined,
 * their 1.9 MB of string literals would be parsed at every cold start (health checks included).
 * The bundling step copies them beside the bundle instead, with the OpenAPI document it writes,
 * and the docs routes read them on first use. lib/bundling.ts runs `copyDocsAssetsCommands` as the system function's
 * `commandHooks.afterBundling`.
 */
export const DOCS_ASSETS_DIR = 'docs-assets';
const DOCS_ASSET_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css'] as const;
export type DocsAssetName = (typeof DOCS_ASSET_FILES)[number];
/** The OpenAPI document, written at bundling time: built at run time it would bring every route table into the bundle. */
export const OPENAPI_FILE = 'openapi.json';

/** Shell commands for NodejsFunction's `commandHooks.afterBundling(inputDir, outputDir)`. */
export const copyDocsAssetsCommands = (inputDir: string, outputDir: string): string[] => [
  `mkdir -p "${outputDir}/${DOCS_ASSETS_DIR}"`,
  `cp ${DOCS_ASSET_FILES.map((f) => `"${inputDir}/node_modules/swagger-ui-dist/${f}"`).join(' ')} "${outputDir}/${DOCS_ASSETS_DIR}/"`,
  `"${inputDir}/node_modules/.bin/tsx" "${inputDir}/scripts/write-openapi.ts" --compact --out "${outputDir}/${DOCS_ASSETS_DIR}/${OPENAPI_FILE}"`,
];
