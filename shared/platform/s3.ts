import { S3Client } from '@aws-sdk/client-s3';
import { s3Options } from './s3-options.ts';

/**
 * One S3 client per process, created on first use, for the code that imports the SDK at top level
 * (content's media). Code that reaches S3 only now and then loads it on first use (`s3OnFirstUse`).
 */
let client: S3Client | undefined;

export function s3(): S3Client {
  if (!client) {
    client = new S3Client(s3Options());
  }
  return client;
}

/** Tests swap the client; undefined resets. */
export function setS3(next: S3Client | undefined) {
  client = next;
}
