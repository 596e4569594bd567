import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { checkItem, commitChange, deleteItem, orConflict, putNew, updateItem } from '#shared/data/commit.ts';
import { getOr404 } from '#shared/data/read.ts';
import { conflict, notFound, payloadTooLarge, unsupportedMediaType, validationError } from '#shared/http/errors.ts';
import { readFilePart, type FilePartRules } from '#shared/http/multipart.ts';
import { toPage } from '#shared/http/responses.ts';
import { SNIFF_BYTES } from '#shared/http/sniff.ts';
import { ALLOWED_TYPES, detectType, storedFileName } from '#areas/content/file-types.ts';
import { getSite, listOfSite } from '#areas/content/lookup.ts';
import {
  copyMediaObject,
  deleteObject,
  mediaObjectKey,
  objectHead,
  presignGet,
  presignPut,
  putMediaObject,
  uploadObjectKey,
} from '#areas/content/objects.ts';
import {
  type MediaRecord,
  mediaItem,
  mediaKey,
  mediaView,
  type SiteRecord,
  siteKey,
  siteList,
  toMedia,
} from '#areas/content/records.ts';
import { DIRECT_UPLOAD_MAX_BYTES, DIRECT_UPLOAD_TOO_LARGE, MEDIA_MAX_BYTES } from '#areas/content/vocabulary.ts';
import type { Item } from '#shared/data/keys.ts';

const LIST_URL_SECONDS = 3600;
const UPLOAD_URL_SECONDS = 15 * 60;
const unsupported = () =>
  unsupportedMediaType(
    'an image, PDF, office document or plain text',
    'Allowed files are images (PNG, JPEG, GIF, WebP), PDF, office documents and plain text or CSV (without markup)',
  );
const view = async (m: MediaRecord) => mediaView(m, await presignGet(m.key, LIST_URL_SECONDS, m));
const getMedia = async (id: string, consistent = true) =>
  toMedia(await getOr404(mediaKey(id), 'Media', { consistent }));

/** A record named by its checked type; a presigned upload's lands in the upload area until completed. */
function newRecord(
  site: SiteRecord,
  folder: string,
  name: string,
  contentType: string,
  size: number,
  status: MediaRecord['status'],
): MediaRecord {
  const id = crypto.randomUUID();
  const fileName = storedFileName(name, contentType);
  return {
    id,
    siteId: site.id,
    tenantId: site.tenantId,
    folder,
    fileName,
    contentType,
    size,
    status,
    key: mediaObjectKey(site.id, folder, id, fileName),
    uploadKey: status === 'pending' ? uploadObjectKey(site.id, id) : null,
    createdAt: new Date().toISOString(),
  };
}

/** Saves the record; an object already in S3 is removed again when the record cannot be saved. */
async function saveRecord(site: SiteRecord, record: MediaRecord, actor: Principal, action: string) {
  try {
    await commitChange(
      [
        putNew(mediaItem(record)),
        bumpCounter(siteList(site.id, 'MEDIA'), 1),
        orConflict(checkItem(siteKey(site.id), 'attribute_exists(pk)'), 'The site was deleted meanwhile'),
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
    );
  } catch (err) {
    if (record.status === 'ready') await deleteObject(record.key).catch(() => undefined);
    throw err;
  }
}

const FILE_PART: FilePartRules = {
  field: 'file',
  accepts: 'multipart/form-data',
  maxFileBytes: DIRECT_UPLOAD_MAX_BYTES,
  tooLargeMessage: DIRECT_UPLOAD_TOO_LARGE,
  maxFiles: 1,
  maxFields: 20,
  maxParts: 25,
  allowEmpty: false,
};

export async function uploadDirect(
  siteId: string,
  folder: string,
  req: { headers: Record<string, string | undefined>; rawBody: string | undefined; isBase64Encoded: boolean },
  actor: Principal,
) {
  const site = await getSite(siteId);
  const body = Buffer.from(req.rawBody ?? '', req.isBase64Encoded ? 'base64' : 'binary');
  const file = await readFilePart(req.headers['content-type'] ?? req.headers['Content-Type'], body, FILE_PART);
  const contentType = detectType(file.data.subarray(0, SNIFF_BYTES), file.declaredType);
  if (!contentType) throw unsupported();
  const record = newRecord(site, folder, file.fileName, contentType, file.data.length, 'ready');
  await putMediaObject(record.key, file.data, contentType, record.fileName);
  await saveRecord(site, record, actor, 'upload');
  return { id: record.id, url: await presignGet(record.key, LIST_URL_SECONDS, record) };
}

/**
 * A presigned PUT for files up to 10 MB into the upload area (objects.ts): the signature covers
 * Content-Length and Content-Type, so S3 refuses another size or type. The record stays `pending`
 * until `complete` checks the upload and copies it where it is served.
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
  return {
    id: record.id,
    uploadUrl: await presignPut(record.uploadKey!, declared, input.size, UPLOAD_URL_SECONDS),
    method: 'PUT',
    headers: { 'content-type': declared, 'content-length': String(input.size) },
    expiresAt: new Date(Date.now() + UPLOAD_URL_SECONDS * 1000).toISOString(),
  };
}

/** The upload was replaced while it was checked (its URL is still valid): the client completes again. */
const replaced = (err: unknown): never => {
  if ((err as { name?: string }).name === 'PreconditionFailed')
    throw conflict('The upload changed while it was checked; complete it again');
  throw err;
};

/**
 * Checks an upload by its size and first bytes, copies it from the upload area to its served key
 * (named by the checked type) and removes the upload; a bad one is deleted with its record. Later
 * PUTs to the upload URL land in the upload area again, which nothing serves.
 */
export async function completeUpload(id: string, actor: Principal) {
  const media = await getMedia(id);
  if (media.status === 'ready') return view(media);
  const source = media.uploadKey ?? media.key;
  const found = await objectHead(source, SNIFF_BYTES).catch(replaced);
  if (!found) throw validationError([{ path: 'params.id', message: 'Nothing was uploaded for this media yet' }]);
  const contentType = detectType(found.head, media.contentType);
  if (found.size > MEDIA_MAX_BYTES || !contentType) {
    await removeMedia(media, actor, 'reject-upload');
    throw contentType ? payloadTooLarge(MEDIA_MAX_BYTES) : unsupported();
  }
  const fileName = storedFileName(media.fileName, contentType);
  const ready: MediaRecord = {
    ...media,
    size: found.size,
    contentType,
    fileName,
    key: mediaObjectKey(media.siteId, media.folder, media.id, fileName),
    uploadKey: null,
    status: 'ready',
  };
  await copyMediaObject({ key: source, etag: found.etag }, ready.key, contentType, fileName).catch(replaced);
  await commitChange(
    [
      orConflict(
        updateItem(
          mediaKey(media.id),
          { size: ready.size, contentType, fileName, key: ready.key, status: ready.status },
          {
            remove: ['uploadKey'],
            condition: 'attribute_exists(pk) AND #status = :pending',
            names: { '#status': 'status' },
            values: { ':pending': 'pending' },
          },
        ),
        'The media was completed or deleted meanwhile',
      ),
    ],
    {
      actor,
      tenantId: media.tenantId,
      entityType: 'Media',
      entityId: media.id,
      action: 'complete-upload',
      changes: { size: found.size, contentType },
    },
  );
  if (source !== ready.key) await deleteObject(source).catch(() => undefined);
  return view(ready);
}

export async function listMedia(siteId: string, q: { page: number; pageSize: number; folder?: string }) {
  const { items, totalCount } = await listOfSite(siteId, (id) =>
    listNewestFirst<Item>(siteList(id, 'MEDIA'), { ...q, where: q.folder ? { folder: q.folder } : {} }),
  );
  return toPage(await Promise.all(items.map((i) => view(toMedia(i)))), totalCount, q.page, q.pageSize);
}

async function removeMedia(media: MediaRecord, actor: Principal, action: string) {
  await Promise.all([deleteObject(media.key), media.uploadKey ? deleteObject(media.uploadKey) : undefined]);
  await commitChange(
    [
      orConflict(deleteItem(mediaKey(media.id), 'attribute_exists(pk)'), 'The media was deleted meanwhile'),
      bumpCounter(siteList(media.siteId, 'MEDIA'), -1),
    ],
    {
      actor,
      tenantId: media.tenantId,
      entityType: 'Media',
      entityId: media.id,
      action,
      changes: { key: media.key },
    },
  );
}

export const deleteMedia = async (id: string, actor: Principal) => removeMedia(await getMedia(id), actor, 'delete');

export async function presignedGet(id: string, expiryMinutes: number) {
  const media = await getMedia(id, false);
  if (media.status !== 'ready') throw notFound('Media');
  return {
    url: await presignGet(media.key, expiryMinutes * 60, media),
    expiresAt: new Date(Date.now() + expiryMinutes * 60_000).toISOString(),
  };
}
