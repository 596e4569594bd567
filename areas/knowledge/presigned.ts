import { writeItem } from '#shared/data/write-one.ts';
import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, deleteItem, orConflict, putNew } from '#shared/data/commit.ts';
import { getOr404 } from '#shared/data/read.ts';
import { conflict, payloadTooLarge, validationError } from '#shared/http/errors.ts';
import { SNIFF_BYTES } from '#shared/http/sniff.ts';
import { copyMediaObject, deleteObject, objectHead, presignPut } from '#areas/content/for-knowledge.ts';
import { readBaseWithRoom } from './bases.ts';
import { queuedDocument, recordDocument } from './documents.ts';
import { detectKnowledgeType } from './file-types.ts';
import { pendingUploadItem, pendingUploadKey, uploadObjectKey, type PendingUpload } from './records.ts';
import { KNOWLEDGE_MAX_BYTES, type KnowledgeFileType } from './vocabulary.ts';

const UPLOAD_URL_SECONDS = 15 * 60;
const fileTooLarge = () =>
  payloadTooLarge(KNOWLEDGE_MAX_BYTES, `A knowledge file may have at most ${KNOWLEDGE_MAX_BYTES} bytes (10 MB)`);
/** A pending upload is forgotten (TTL) a day after its URL expired. */
const PENDING_TTL_SECONDS = 24 * 3600;

/**
 * Files over what a Lambda request carries (up to 10 MB) go straight to S3, as media uploads do:
 * a presigned PUT (its signature covers Content-Type and Content-Length) into an upload area that
 * nothing reads, then `complete` checks the bytes exactly as a direct upload is checked, copies the
 * file to where the worker reads originals, and queues the document.
 */
export async function presignDocumentUpload(
  tenantId: string,
  kbId: string,
  input: { fileName: string; contentType: KnowledgeFileType; size: number; title?: string | null },
  actor: Principal,
) {
  await readBaseWithRoom(tenantId, kbId);
  const id = crypto.randomUUID();
  const now = Date.now();
  const expiresAt = new Date(now + UPLOAD_URL_SECONDS * 1000).toISOString();
  const upload: PendingUpload = {
    id,
    tenantId,
    kbId,
    fileName: input.fileName,
    contentType: input.contentType,
    size: input.size,
    title: input.title?.trim() || input.fileName,
    uploadedBy: actor.userId,
    objectKey: uploadObjectKey(tenantId, kbId, id),
    expiresAt,
    ttl: Math.floor(now / 1000) + UPLOAD_URL_SECONDS + PENDING_TTL_SECONDS,
  };
  await commitChange([putNew(pendingUploadItem(upload))], {
    tenantId,
    actor,
    entityType: 'KnowledgeUpload',
    entityId: id,
    action: 'presign-upload',
    changes: { kbId, fileName: upload.fileName, contentType: upload.contentType, size: upload.size },
  });
  return {
    uploadId: id,
    uploadUrl: await presignPut(upload.objectKey, input.contentType, input.size, UPLOAD_URL_SECONDS),
    method: 'PUT' as const,
    headers: { 'content-type': input.contentType, 'content-length': String(input.size) },
    expiresAt,
  };
}

export async function completeDocumentUpload(tenantId: string, kbId: string, uploadId: string, actor: Principal) {
  await readBaseWithRoom(tenantId, kbId);
  const upload = await getOr404<PendingUpload>(pendingUploadKey(tenantId, kbId, uploadId), 'Upload', {
    consistent: true,
  });
  const found = await objectHead(upload.objectKey, SNIFF_BYTES);
  if (!found) throw validationError([{ path: 'params.uploadId', message: 'Nothing was uploaded for this upload yet' }]);
  const forget = async () => {
    await deleteObject(upload.objectKey).catch(() => undefined);
    await writeItem(deleteItem(pendingUploadKey(tenantId, kbId, uploadId)));
  };
  if (found.size > KNOWLEDGE_MAX_BYTES) {
    await forget();
    throw fileTooLarge();
  }
  let contentType: KnowledgeFileType;
  try {
    contentType = detectKnowledgeType(found.head, upload.contentType, upload.fileName);
  } catch (err) {
    await forget();
    throw err;
  }
  const doc = queuedDocument(
    tenantId,
    kbId,
    { title: upload.title, fileName: upload.fileName, contentType, sizeBytes: found.size },
    actor,
  );
  await copyMediaObject({ key: upload.objectKey, etag: found.etag }, doc.objectKey, contentType, upload.fileName);
  const answer = await recordDocument(doc, actor, [
    orConflict(
      deleteItem(pendingUploadKey(tenantId, kbId, uploadId), 'attribute_exists(pk)'),
      conflict('The upload was completed meanwhile'),
    ),
  ]);
  await deleteObject(upload.objectKey).catch(() => undefined);
  return answer;
}
