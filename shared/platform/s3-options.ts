import type { S3ClientConfig } from '@aws-sdk/client-s3';

/** `S3_ENDPOINT` points S3 at the local stand-in, which only understands path-style addressing. */
export const s3Options = (): S3ClientConfig => {
  const endpoint = process.env.S3_ENDPOINT;
  return {
    ...(endpoint ? { endpoint, region: process.env.AWS_REGION ?? 'us-east-1' } : {}),
    forcePathStyle: process.env.S3_FORCE_PATH_STYLE === '1',
  };
};
