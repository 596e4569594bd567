import { DeleteObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { config } from '../platform/config.ts';
import { s3 } from '../platform/s3.ts';

/** Media objects of a site live under `sites/{siteId}/{folder}/`. */
export const sitePrefix = (siteId: string) => `sites/${siteId}/`;

export const deleteObject = (key: string) => s3().send(new DeleteObjectCommand({ Bucket: config.mediaBucket, Key: key }));

/** Deletes every object under a prefix (listed 1,000 per request). */
export async function deletePrefix(prefix: string) {
  let ContinuationToken: string | undefined;
  do {
    const page = await s3().send(new ListObjectsV2Command({ Bucket: config.mediaBucket, Prefix: prefix, ContinuationToken }));
    const objects = (page.Contents ?? []).map((o) => o.Key!);
    // One DeleteObject per key, ten at a time: the local S3 stand-in refuses DeleteObjects without Content-MD5.
    for (let i = 0; i < objects.length; i += 10) await Promise.all(objects.slice(i, i + 10).map(deleteObject));
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
}

/** A presigned GET (signed locally: no network call). The presigner is loaded on first use. */
export async function presignGet(key: string, expiresInSeconds: number) {
  const [{ getSignedUrl }, { GetObjectCommand }] = await Promise.all([import('@aws-sdk/s3-request-presigner'), import('@aws-sdk/client-s3')]);
  return getSignedUrl(s3(), new GetObjectCommand({ Bucket: config.mediaBucket, Key: key }), { expiresIn: expiresInSeconds });
}
