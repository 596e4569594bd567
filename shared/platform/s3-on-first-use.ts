import type { S3Client } from '@aws-sdk/client-s3';
import { s3Options } from './s3-options.ts';

let lazyS3: { endpoint: string | undefined; client: S3Client } | undefined;

/**
 * The S3 SDK and a client, loaded on first use (invoices: billing and the webhook worker keep
 * `@aws-sdk/client-s3` beside the bundle, see lib/bundling.ts; the import stays dynamic for the
 * reason given in lazy-sdk.ts). A changed `S3_ENDPOINT` (tests start a new stand-in) makes a new
 * client.
 */
export async function s3OnFirstUse() {
  const sdk = await import('@aws-sdk/client-s3');
  const endpoint = process.env.S3_ENDPOINT;
  if (!lazyS3 || lazyS3.endpoint !== endpoint) lazyS3 = { endpoint, client: new sdk.S3Client(s3Options()) };
  return { sdk, client: lazyS3.client };
}
