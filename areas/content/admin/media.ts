import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { ApiError, notFound, payloadTooLarge, unsupportedMediaType, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { ALLOWED_TYPES, detectType, safeFileName } from '#areas/content/file-types.ts';
import { deleteObject, presignGet } from '#areas/content/objects.ts';
import { commit, del, getSite, put, readOr404, siteExists, type Item, type SiteRecord } from '#areas/content/store.ts';
import { config } from '#shared/platform/config.ts';
import { s3 } from '#shared/platform/s3.ts';
import { listOfSite } from './site-lists.ts';
import { DIRECT_UPLOAD_MAX_BYTES, MEDIA_MAX_BYTES } from '#shared/routes/content.ts';

interface MediaRecord {
  id: string;
  siteId: string;
  tenantId: string;
  folder: string;
  fileName: string;
  contentType: string;
  size: number;
  /** `pending` until a presigned upload is completed; direct uploads are `ready` at once. */
  status: 'pending' | 'ready';
  key: string;
  createdAt: string;
}

const LIST_URL_SECONDS = 3600;
const UPLOAD_URL_SECONDS = 15 * 60;
const unsupported = () =>
  new ApiError(
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    'Allowed files are images (PNG, JPEG, GIF, WebP), PDF, office documents and plain text or CSV',
  );
const mediaKey = (id: string) => keys.contentRecord('MEDIA', id.toLowerCase());
const mediaItem = (r: MediaRecord) => ({
  ...mediaKey(r.id),
  ...keys.newestFirst(keys.siteList(r.siteId, 'MEDIA'), r.createdAt, r.id),
  ...r,
});
const toMedia = (i: Item) => i as unknown as MediaRecord;
const view = async ({ tenantId: _t, ...m }: MediaRecord) => ({ ...m, url: await presignGet(m.key, LIST_URL_SECONDS) });

const newRecord = (
  site: SiteRecord,
  folder: string,
  fileName: string,
  contentType: string,
  size: number,
  status: MediaRecord['status'],
): MediaRecord => {
  const id = crypto.randomUUID();
  const name = safeFileName(fileName);
  return {
    id,
    siteId: site.id,
    tenantId: site.tenantId,
    folder,
    fileName: name,
    contentType,
    size,
    status,
    key: `sites/${site.id}/${folder}/${id}-${name}`,
    createdAt: new Date().toISOString(),
  };
};

/** Saves the record; an object already in S3 is removed again when the record cannot be saved. */
async function saveRecord(site: SiteRecord, record: MediaRecord, actor: Principal, action: string) {
  try {
    await commit(
      [
        put(mediaItem(record), 'attribute_not_exists(pk)'),
        bumpCounter(keys.siteList(site.id, 'MEDIA'), 1),
        siteExists(site.id),
      ],
      {
        actor,
        tenantId: site.tenantId,
        entityType: 'Media',
        entityId: record.id,
        action,
        changes: {
          siteId: site.id,
          folder: record.folder,
          fileName: record.fileName,
          contentType: record.contentType,
          size: record.size,
        },
      },
      { 2: 'The site was deleted meanwhile' },
    );
  } catch (err) {
    if (record.status === 'ready') await deleteObject(record.key).catch(() => undefined);
    throw err;
  }
}

interface UploadedFile {
  fileName: string;
  declaredType: string;
  data: Buffer;
}

/** The part named `file` of a multipart body, through busboy (loaded on first use). */
async function filePart(headers: Record<string, string | undefined>, body: Buffer): Promise<UploadedFile> {
  const contentType = headers['content-type'] ?? headers['Content-Type'];
  if (!contentType?.toLowerCase().startsWith('multipart/form-data')) throw unsupportedMediaType('multipart/form-data');
  const { default: busboy } = await import('busboy');
  return new Promise<UploadedFile>((resolve, reject) => {
    let parser: ReturnType<typeof busboy>;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: { files: 1, fileSize: DIRECT_UPLOAD_MAX_BYTES, fields: 20, parts: 25 },
      });
    } catch {
      reject(validationError([{ path: 'body', message: 'Not a multipart/form-data body with a boundary' }]));
      return;
    }
    let found: UploadedFile | undefined;
    let tooLarge = false;
    parser.on('file', (name, stream, info) => {
      if (name !== 'file') return void stream.resume();
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => (tooLarge = true));
      stream.on(
        'close',
        () => (found = { fileName: info.filename || 'file', declaredType: info.mimeType, data: Buffer.concat(chunks) }),
      );
    });
    parser.on('error', () => reject(validationError([{ path: 'body', message: 'Malformed multipart body' }])));
    parser.on('close', () => {
      if (tooLarge) reject(payloadTooLarge(DIRECT_UPLOAD_MAX_BYTES));
      else if (!found || !found.data.length)
        reject(validationError([{ path: 'body.file', message: 'A non-empty file part named "file" is required' }]));
      else resolve(found);
    });
    parser.end(body);
  });
}

export async function uploadDirect(
  siteId: string,
  folder: string,
  req: { headers: Record<string, string | undefined>; rawBody: string | undefined; isBase64Encoded: boolean },
  actor: Principal,
) {
  const site = await getSite(siteId);
  const body = Buffer.from(req.rawBody ?? '', req.isBase64Encoded ? 'base64' : 'binary');
  const file = await filePart(req.headers, body);
  const contentType = detectType(file.data.subarray(0, 64), file.declaredType);
  if (!contentType) throw unsupported();
  const record = newRecord(site, folder, file.fileName, contentType, file.data.length, 'ready');
  await s3().send(
    new PutObjectCommand({ Bucket: config.mediaBucket, Key: record.key, Body: file.data, ContentType: contentType }),
  );
  await saveRecord(site, record, actor, 'upload');
  return { id: record.id, url: await presignGet(record.key, LIST_URL_SECONDS) };
}

/**
 * A presigned PUT for files up to 10 MB: the signature covers Content-Length and Content-Type, so
 * S3 refuses another size or type. The record stays `pending` until `complete` checks the object.
 */
export async function presignUpload(
  siteId: string,
  input: { fileName: string; contentType: string; size: number; folder: string },
  actor: Principal,
) {
  if (input.size > MEDIA_MAX_BYTES) throw payloadTooLarge(MEDIA_MAX_BYTES);
  const declared = input.contentType.toLowerCase();
  if (!(ALLOWED_TYPES as readonly string[]).includes(declared)) throw unsupported();
  const site = await getSite(siteId);
  const record = newRecord(site, input.folder, input.fileName, declared, input.size, 'pending');
  await saveRecord(site, record, actor, 'presign-upload');
  const uploadUrl = await getSignedUrl(
    s3(),
    new PutObjectCommand({
      Bucket: config.mediaBucket,
      Key: record.key,
      ContentType: declared,
      ContentLength: input.size,
    }),
    {
      expiresIn: UPLOAD_URL_SECONDS,
      signableHeaders: new Set(['content-type', 'content-length']),
    },
  );
  return {
    id: record.id,
    uploadUrl,
    method: 'PUT',
    headers: { 'content-type': declared, 'content-length': String(input.size) },
    expiresAt: new Date(Date.now() + UPLOAD_URL_SECONDS * 1000).toISOString(),
  };
}

/** Checks an uploaded object by its size and first bytes; a bad one is deleted with its record. */
export async function completeUpload(id: string, actor: Principal) {
  const media = toMedia(await readOr404(mediaKey(id), 'Media'));
  if (media.status === 'ready') return view(media);
  const head = await s3()
    .send(new HeadObjectCommand({ Bucket: config.mediaBucket, Key: media.key }))
    .catch(() => null);
  if (!head) throw validationError([{ path: 'params.id', message: 'Nothing was uploaded for this media yet' }]);
  const size = Number(head.ContentLength ?? 0);
  const first = await s3().send(
    new GetObjectCommand({ Bucket: config.mediaBucket, Key: media.key, Range: 'bytes=0-63' }),
  );
  const bytes = await first.Body!.transformToByteArray();
  const contentType = detectType(bytes, media.contentType);
  const problem = size > MEDIA_MAX_BYTES ? payloadTooLarge(MEDIA_MAX_BYTES) : !contentType ? unsupported() : null;
  if (problem) {
    await removeMedia(media, actor, 'reject-upload');
    throw problem;
  }
  const ready: MediaRecord = { ...media, size, contentType: contentType!, status: 'ready' };
  await commit([put(mediaItem(ready), 'attribute_exists(pk)')], {
    actor,
    tenantId: media.tenantId,
    entityType: 'Media',
    entityId: media.id,
    action: 'complete-upload',
    changes: { size, contentType },
  });
  return view(ready);
}

export async function listMedia(siteId: string, q: { page: number; pageSize: number; folder?: string }) {
  const { items, totalCount } = await listOfSite(siteId, (id) =>
    listNewestFirst<Item>(keys.siteList(id, 'MEDIA'), { ...q, where: q.folder ? { folder: q.folder } : {} }),
  );
  return toPage(await Promise.all(items.map((i) => view(toMedia(i)))), totalCount, q.page, q.pageSize);
}

async function removeMedia(media: MediaRecord, actor: Principal, action: string) {
  await deleteObject(media.key);
  await commit(
    [del(mediaKey(media.id), 'attribute_exists(pk)'), bumpCounter(keys.siteList(media.siteId, 'MEDIA'), -1)],
    {
      actor,
      tenantId: media.tenantId,
      entityType: 'Media',
      entityId: media.id,
      action,
      changes: { key: media.key },
    },
    { 0: 'The media was deleted meanwhile' },
  );
}

export const deleteMedia = async (id: string, actor: Principal) =>
  removeMedia(toMedia(await readOr404(mediaKey(id), 'Media')), actor, 'delete');

export async function presignedGet(id: string, expiryMinutes: number) {
  const media = toMedia(await readOr404(mediaKey(id), 'Media', false));
  if (media.status !== 'ready') throw notFound('Media');
  return {
    url: await presignGet(media.key, expiryMinutes * 60),
    expiresAt: new Date(Date.now() + expiryMinutes * 60_000).toISOString(),
  };
}
