import { defineLoadedPort } from './ports.ts';

/**
 * The S3 SDK and a client, loaded on first use (invoices: billing and the webhook worker keep
 * `@aws-sdk/client-s3` beside the bundle, see lib/bundling.ts; the import stays dynamic for the
 * reason given in lazy-sdk.ts).
 */
export const s3OnFirstUse = defineLoadedPort(async () => {
  const sdk = await import('@aws-sdk/client-s3');
  return { sdk, client: new sdk.S3Client({}) };
});
