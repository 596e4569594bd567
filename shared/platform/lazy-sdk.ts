/**
 * The AWS SDK clients that functions reach only through a port, imported on first use by name.
 * Deployed bundles keep these packages beside the bundle (`LAZY_SDK_CLIENTS` in lib/bundling.ts),
 * so a cold start parses none of them. The import must stay dynamic right here: esbuild hoists a
 * static import of an external package to the top of the bundle, even inside a module the bundle
 * loads lazily, which would load the package at every cold start.
 */
export const loadSdk = {
  sqs: () => import('@aws-sdk/client-sqs'),
  ses: () => import('@aws-sdk/client-ses'),
};
