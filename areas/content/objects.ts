import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '#shared/platform/config.ts';
import { s3 } from '#shared/platform/s3.ts';

/**
 * Media objects of a site are served from `sites/{siteId}/{folder}/{id}-{name}`. A presigned upload
 * lands in `uploads/{siteId}/{id}` instead, where nothing serves it: `complete` checks it there and
 * copies it to its served key, so the upload URL (valid 15 minutes) can never replace a checked file.
 */
export const sitePrefix = (siteId: string) => `sites/${siteId}/`;
export const uploadPrefix = (siteId: string) => `uploads/${siteId}/`;
export const mediaObjectKey = (siteId: string, folder: string, id: string, fileName: string) =>
  `${sitePrefix(siteId)}${folder}/${id}-${fileName}`;
export const uploadObjectKey = (siteId: string, id: string) => `${uploadPrefix(siteId)}${id}`;

/**
 * How a stored file is offered: as a download under its stored name, never rendered in the
 * bucket's origin. (S3 cannot store `X-Content-Type-Options`; see docs/decisions/content.md, "Media".)
 */
const disposition = (fileName: string) => `attachment; filename="${fileName}"`;

export const putMediaObject = (key: string, body: Uint8Array, contentType: string, fileName: string) =>
  s3().send(
    new PutObjectCommand({
      Bucket: config.mediaBucket,
      Key: key,
      Body: body,
      ContentType: contentType,
      ContentDisposition: disposition(fileName),
    }),
  );

/**
 * Copies a checked upload to where it is served, with its checked type and download name; only
 * the version that was checked (`etag`): an upload replaced meanwhile fails the copy.
 */
export const copyMediaObject = (
  from: { key: string; etag?: string },
  to: string,
  contentType: string,
  fileName: string,
) =>
  s3().send(
    new CopyObjectCommand({
      Bucket: config.mediaBucket,
      CopySource: `${config.mediaBucket}/${from.key.split('/').map(encodeURIComponent).join('/')}`,
      ...(from.etag ? { CopySourceIfMatch: from.etag } : {}),
      Key: to,
      MetadataDirective: 'REPLACE',
      ContentType: contentType,
      ContentDisposition: disposition(fileName),
    }),
  );

export interface ObjectHead {
  size: number;
  /** The version read (its ETag), so a later copy takes exactly this one. */
  etag?: string;
  head: Uint8Array;
}

/** The size, ETag and first `bytes` bytes of an object, or null when there is none. */
export async function objectHead(key: string, bytes: number): Promise<ObjectHead | null> {
  const found = await s3()
    .send(new HeadObjectCommand({ Bucket: config.mediaBucket, Key: key }))
    .catch(() => null);
  if (!found) return null;
  const size = Number(found.ContentLength ?? 0);
  const etag = found.ETag;
  if (!size) return { size, etag, head: new Uint8Array() };
  const first = await s3().send(
    new GetObjectCommand({
      Bucket: config.mediaBucket,
      Key: key,
      Range: `bytes=0-${bytes - 1}`,
      ...(etag ? { IfMatch: etag } : {}),
    }),
  );
  return { size, etag, head: await first.Body!.transformToByteArray() };
}

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
 * A presigned GET (signed locally: no network call) that answers with the checked type as a
 * download, whatever the object's own headers say. Imported statically like the S3 client: a
 * module both imported and `import()`ed is wrapped by esbuild and parsed twice at cold start.
 */
export async function presignGet(
  key: string,
  expiresInSeconds: number,
  file: { contentType: string; fileName: string },
) {
  return getSignedUrl(
    s3(),
    new GetObjectCommand({
      Bucket: config.mediaBucket,
      Key: key,
      ResponseContentType: file.contentType,
      ResponseContentDisposition: disposition(file.fileName),
    }),
    { expiresIn: expiresInSeconds },
  );
}

/** A presigned PUT whose signature covers Content-Length and Content-Type, so S3 refuses another size or type. */
export const presignPut = (key: string, contentType: string, size: number, expiresInSeconds: number) =>
  getSignedUrl(
    s3(),
    new PutObjectCommand({ Bucket: config.mediaBucket, Key: key, ContentType: contentType, ContentLength: size }),
    { expiresIn: expiresInSeconds, signableHeaders: new Set(['content-type', 'content-length']) },
  );
