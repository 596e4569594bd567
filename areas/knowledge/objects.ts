import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { config } from '#shared/platform/config.ts';
import { s3 } from '#shared/platform/s3.ts';

export { deleteObject, deletePrefix } from '#areas/content/for-knowledge.ts';

/** Knowledge objects (originals, keyword indexes) in the media bucket under `knowledge/{tenantId}/` (records.ts). */
export const putObject = (key: string, body: Uint8Array | string, contentType: string) =>
  s3().send(new PutObjectCommand({ Bucket: config.mediaBucket, Key: key, Body: body, ContentType: contentType }));

export async function getObject(key: string): Promise<Uint8Array | null> {
  try {
    const out = await s3().send(new GetObjectCommand({ Bucket: config.mediaBucket, Key: key }));
    return out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
  } catch (err) {
    if ((err as { name?: string }).name === 'NoSuchKey') return null;
    throw err;
  }
}
