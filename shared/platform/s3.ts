import { S3Client } from '@aws-sdk/client-s3';
import { definePort } from './ports.ts';

/**
 * The S3 client, one per process, created on first use, for the code that imports the SDK at top
 * level (content's media). Code that reaches S3 only now and then loads it on first use
 * (`s3OnFirstUse`). Locally the SDK's `AWS_ENDPOINT_URL_S3` points it at the S3 stand-in.
 */
export const s3 = definePort(() => new S3Client({}));
