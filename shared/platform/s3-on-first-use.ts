// From port.ts, not ports.ts: this module is reached through `import()`, and a module both imported
// and import()ed is wrapped by esbuild, which then keeps every export of what it imports (SSM's).
import { defineLoadedPort } from './port.ts';

/**
 * The S3 SDK and a client, loaded on first use (invoices: billing and the webhook worker keep
 * `@aws-sdk/client-s3` beside the bundle, see lib/bundling.ts; the import stays dynamic for the
 * reason given in lazy-sdk.ts).
 */
export const s3OnFirstUse = defineLoadedPort(async () => {
  const sdk = await import('@aws-sdk/client-s3');
  return { sdk, client: new sdk.S3Client({}) };
});
