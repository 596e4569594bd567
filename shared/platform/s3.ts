import { S3Client } from '@aws-sdk/client-s3';

/**
 * One S3 client per process, created on first use. `S3_ENDPOINT` points it at the local S3
 * stand-in, which only understands path-style addressing (`S3_FORCE_PATH_STYLE=1`).
 */
let client: S3Client | undefined;

export function s3(): S3Client {
  if (!client) {
    const endpoint = process.env.S3_ENDPOINT;
    client = new S3Client({
      ...(endpoint ? { endpoint, region: process.env.AWS_REGION ?? 'us-east-1' } : {}),
      forcePathStyle: process.env.S3_FORCE_PATH_STYLE === '1',
    });
  }
  return client;
}

/** Tests swap the client; undefined resets. */
export function setS3(next: S3Client | undefined) {
  client = next;
}
