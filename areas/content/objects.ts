import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '#shared/platform/config.ts';
import { s3 } from '#shared/platform/s3.ts';

/** Media objects of a site live under `sites/{siteId}/{folder}/`. */
export const sitePrefix = (siteId: string) => `sites/${siteId}/`;

export const deleteObject = (key: string) =>
  s3().send(new DeleteObjectCommand({ Bucket: config.mediaBucket, Key: key }));

/** Deletes every object under a prefix (listed 1,000 per request). */
export async function deletePrefix(prefix: string) {
  let ContinuationToken: string | undefined;
  do {
    const page = await s3().send(
      new ListObjectsV2Command({ Bucket: config.mediaBucket, Prefix: prefix, ContinuationToken }),
    );
    const objects = (page.Contents ?? []).map((o) => o.Key!);
    // One DeleteObject per key, ten at a time: the local S3 stand-in refuses DeleteObjects without Content-MD5.
    for (let i = 0; i < objects.length; i += 10) await Promise.all(objects.slice(i, i + 10).map(deleteObject));
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
}

/**
 * A presigned GET (signed locally: no network call). Imported statically like the S3 client: a
 * module both imported and `import()`ed is wrapped by esbuild and parsed twice at cold start.
 */
export async function presignGet(key: string, expiresInSeconds: number) {
  return getSignedUrl(s3(), new GetObjectCommand({ Bucket: config.mediaBucket, Key: key }), {
    expiresIn: expiresInSeconds,
  });
}
