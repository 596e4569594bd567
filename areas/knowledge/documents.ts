import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { safeParse } from 'zod/mini';
import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, orConflict, putNew, type Change, type Write } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { conflict, invalidJson, notFound, validationError } from '#shared/http/errors.ts';
import { readFilePart, type FilePartRules } from '#shared/http/multipart.ts';
import { toPage } from '#shared/http/responses.ts';
import { SNIFF_BYTES } from '#shared/http/sniff.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { enqueue } from '#shared/queue/messages.ts';
import { textDocumentBody } from '#areas/knowledge/routes.ts';
import { readBase, readBaseWithRoom } from './bases.ts';
import { emit } from '#shared/data/events.ts';
import { CHUNKS_CHANGED } from './events.ts';
import { detectKnowledgeType } from './file-types.ts';
import { INDEX_DOCUMENT, PURGE_DOCUMENT } from './messages.ts';
import { putObject } from './objects.ts';
import {
  chunkList,
  documentItem,
  documentKey,
  documentList,
  kbKey,
  originalObjectKey,
  padPosition,
  pendingEntry,
  toChunk,
  toDocument,
  type BaseRecord,
  type ChunkRecord,
  type DocumentRecord,
} from './records.ts';
import { countMove, statusMove } from './status.ts';
import { failIfStuck } from './stuck.ts';
import { DIRECT_MAX_BYTES, DIRECT_TOO_LARGE, STAGE_DEADLINE_MS } from './vocabulary.ts';

const change = (
  d: { tenantId: string; id: string },
  actor: Principal | null,
  action: string,
  changes: Change['changes'],
) =>
  ({ tenantId: d.tenantId, actor, entityType: 'KnowledgeDocument', entityId: d.id, action, changes }) satisfies Change;

const deadlineFrom = (stage: keyof typeof STAGE_DEADLINE_MS, now: number) =>
  new Date(now + STAGE_DEADLINE_MS[stage]).toISOString();

interface UploadRequest {
  headers: Record<string, string | undefined>;
  rawBody: string | undefined;
  isBase64Encoded: boolean;
  title?: string;
}

interface Incoming {
  title: string;
  fileName: string | null;
  contentType: string;
  data: Buffer;
}

const contentTypeOf = (headers: Record<string, string | undefined>) =>
  headers['content-type'] ?? headers['Content-Type'] ?? '';

/**
 * Unlike a media upload an empty file is accepted, so it ends Failed with its reason in the document
 * list instead of vanishing at the door; a `title` field may name it.
 */
const FILE_PART: FilePartRules = {
  field: 'file',
  accepts: 'multipart/form-data or application/json',
  maxFileBytes: DIRECT_MAX_BYTES,
  tooLargeMessage: DIRECT_TOO_LARGE,
  maxFiles: 1,
  maxFields: 10,
  maxParts: 15,
  maxFieldBytes: 4096,
  allowEmpty: true,
};

/** The upload as JSON {title, text} (stored as text/plain) or a multipart `file`, its type checked. */
async function incoming(req: UploadRequest): Promise<Incoming> {
  const body = Buffer.from(req.rawBody ?? '', req.isBase64Encoded ? 'base64' : 'utf8');
  const type = contentTypeOf(req.headers).toLowerCase();
  if (type.startsWith('application/json')) {
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      throw invalidJson();
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      throw invalidJson('Request body must be a JSON object');
    const parsed = safeParse(textDocumentBody(), json);
    if (!parsed.success)
      throw validationError(
        parsed.error.issues.map((i) => ({ path: ['body', ...i.path.map(String)].join('.'), message: i.message })),
      );
    return { title: parsed.data.title, fileName: null, contentType: 'text/plain', data: Buffer.from(parsed.data.text) };
  }
  const raw = Buffer.from(req.rawBody ?? '', req.isBase64Encoded ? 'base64' : 'binary');
  const file = await readFilePart(contentTypeOf(req.headers), raw, FILE_PART);
  const contentType = detectKnowledgeType(file.data.subarray(0, SNIFF_BYTES), file.declaredType, file.fileName);
  const title = (req.title ?? file.fields.title ?? '').trim().slice(0, 300) || file.fileName;
  return { title, fileName: file.fileName.slice(0, 255), contentType, data: file.data };
}

/**
 * Stores the original, records the document Queued (the base's documentCount with it, only while
 * the base exists) and queues its indexing; answers at once (202).
 */
export async function uploadDocument(tenantId: string, kbId: string, req: UploadRequest, actor: Principal) {
  await readBaseWithRoom(tenantId, kbId);
  const file = await incoming(req);
  const doc = queuedDocument(tenantId, kbId, { ...file, sizeBytes: file.data.length }, actor);
  await putObject(doc.objectKey, file.data, file.contentType);
  return recordDocument(doc, actor);
}

/**
 * Saves a Queued document (the base's documentCount with it, only while the base exists) and queues
 * its indexing; a source's page queues its own (`index: false`), so its version swaps in once indexed.
 */
export async function recordDocument(
  doc: DocumentRecord,
  actor: Principal | null,
  also: Write[] = [],
  opts: { index?: boolean } = {},
) {
  const { tenantId, kbId } = doc;
  await commitChange(
    [
      putNew(documentItem(doc)),
      countMove(doc, null, 'Queued', { set: { updatedAt: doc.createdAt }, add: { documentCount: 1 } }),
      ...also,
    ],
    change(doc, actor, 'upload', { kbId, title: doc.title, contentType: doc.contentType, sizeBytes: doc.sizeBytes }),
    { now: doc.createdAt },
  );
  if (opts.index !== false)
    await enqueue(INDEX_DOCUMENT, { tenantId, kbId, documentId: doc.id }, { id: `index-${doc.id}` });
  return toDocument(doc);
}

/** A new document record, Queued, with its Queued deadline. */
export function queuedDocument(
  tenantId: string,
  kbId: string,
  file: { title: string; fileName: string | null; contentType: string; sizeBytes: number },
  actor: Pick<Principal, 'userId'>,
  id: string = crypto.randomUUID(),
): DocumentRecord {
  const now = Date.now();
  const at = new Date(now).toISOString();
  return {
    id,
    tenantId,
    kbId,
    title: file.title,
    fileName: file.fileName,
    contentType: file.contentType,
    sizeBytes: file.sizeBytes,
    uploadedBy: actor.userId,
    status: 'Queued',
    progressPercent: 0,
    chunkCount: 0,
    tokenCount: 0,
    error: null,
    objectKey: originalObjectKey(tenantId, kbId, id),
    stageDeadline: deadlineFrom('Queued', now),
    createdAt: at,
    indexedAt: null,
    updatedAt: at,
  };
}

/**
 * A page of documents: the base's GetItem (its documentCount is the total) and one Query. A
 * document past its stage deadline is ended Failed here too, so a list never shows it running forever.
 */
export async function listDocuments(
  tenantId: string,
  kbId: string,
  q: { page: number; pageSize: number; status?: DocumentRecord['status'] },
) {
  const start = (q.page - 1) * q.pageSize;
  const query = {
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': documentList(tenantId, kbId), ...(q.status ? { ':status': q.status } : {}) },
    ...(q.status ? { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } } : {}),
    ScanIndexForward: false,
  };
  const [base, items] = await Promise.all([
    readBase(tenantId, kbId),
    queryItems<DocumentRecord>(query, q.status ? Number.POSITIVE_INFINITY : start + q.pageSize),
  ]);
  const now = Date.now();
  const docs = await Promise.all(items.map((d) => failIfStuck(d, now)));
  const shown = q.status ? docs.filter((d) => d.status === q.status) : docs;
  const total = q.status ? shown.length : Math.max(0, Number(base.documentCount ?? 0));
  return toPage(shown.slice(start, start + q.pageSize).map(toDocument), total, q.page, q.pageSize);
}

/** The base and a document in one BatchGetItem; 404 when either is missing. */
async function baseAndDocument(tenantId: string, kbId: string, documentId: string) {
  const keys = [kbKey(tenantId, kbId), documentKey(tenantId, kbId, documentId)];
  const out = await ddb().send(new BatchGetCommand({ RequestItems: { [config.tableName]: { Keys: keys } } }));
  const items = out.Responses?.[config.tableName] ?? [];
  const base = items.find((i) => i.pk === keys[0]!.pk && i.sk === keys[0]!.sk) as BaseRecord | undefined;
  if (!base) throw notFound('Knowledge base');
  const doc = items.find((i) => i.pk === keys[1]!.pk && i.sk === keys[1]!.sk) as DocumentRecord | undefined;
  if (!doc) throw notFound('Document');
  return { base, doc };
}

/** A page of a document's chunks in position order: one BatchGetItem and one Query on the position range. */
export async function listChunks(
  tenantId: string,
  kbId: string,
  documentId: string,
  q: { page: number; pageSize: number },
) {
  const { doc } = await baseAndDocument(tenantId, kbId, documentId);
  const total = doc.status === 'Indexed' ? Number(doc.chunkCount ?? 0) : 0;
  const from = (q.page - 1) * q.pageSize;
  const to = Math.min(total, from + q.pageSize) - 1;
  const chunks =
    to < from
      ? []
      : await queryItems<ChunkRecord>({
          TableName: config.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': chunkList(tenantId, kbId, documentId),
            ':from': padPosition(from),
            ':to': padPosition(to),
          },
        });
  return toPage(chunks.map(toChunk), total, q.page, q.pageSize);
}

/**
 * The document item goes in the request (retrieval reads live documents, so its chunks stop
 * matching at once); the base's counts follow in the same transaction; the worker removes its
 * chunks, vectors, keyword entries and original (PURGE_DOCUMENT). The delete is conditional on the
 * status it read, so a worker finishing meanwhile cannot leave the base's chunkCount wrong.
 */
export async function deleteDocument(tenantId: string, kbId: string, documentId: string, actor: Principal | null) {
  let chunks = 0;
  for (let attempt = 1; ; attempt++) {
    await readBase(tenantId, kbId, true);
    const doc = await get<DocumentRecord>(documentKey(tenantId, kbId, documentId), { consistent: true });
    if (!doc) throw notFound('Document');
    chunks = doc.status === 'Indexed' ? Number(doc.chunkCount ?? 0) : 0;
    const terms = doc.status === 'Indexed' ? Number(doc.keywordTerms ?? 0) : 0;
    try {
      await commitChange(
        [
          orConflict(
            {
              Delete: {
                TableName: config.tableName,
                Key: documentKey(tenantId, kbId, documentId),
                ConditionExpression: '#status = :status AND chunkCount = :chunks',
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: { ':status': doc.status, ':chunks': doc.chunkCount },
              },
            },
            'The document changed meanwhile',
          ),
          countMove(doc, doc.status, null, {
            set: { updatedAt: new Date().toISOString() },
            add: { documentCount: -1, chunkCount: -chunks, keywordTerms: -terms },
          }),
        ],
        change(doc, actor, 'delete', { kbId, title: doc.title, chunkCount: chunks }),
      );
      break;
    } catch (err) {
      if (!conflict.is(err) || attempt >= 3) throw err;
    }
  }
  if (chunks > 0) await emit(CHUNKS_CHANGED, { tenantId, cause: 'document deleted' });
  await enqueue(PURGE_DOCUMENT, { tenantId, kbId, documentId });
}

/**
 * A Failed document queued again from its kept original (no new upload): Failed -> Queued with a
 * fresh Queued deadline, the base's counters moved in the same transaction, then its indexing is
 * queued. Any other status is 409: a document waiting or running is already on its way, an Indexed
 * one has nothing to retry.
 */
export async function retryDocument(tenantId: string, kbId: string, documentId: string, actor: Principal) {
  const { doc } = await baseAndDocument(tenantId, kbId, documentId);
  if (doc.status !== 'Failed') throw conflict(`Only a Failed document can be retried; this one is ${doc.status}`);
  const now = Date.now();
  const at = new Date(now).toISOString();
  const deadline = deadlineFrom('Queued', now);
  const set = {
    status: 'Queued' as const,
    progressPercent: 0,
    chunkCount: 0,
    tokenCount: 0,
    error: null,
    stageDeadline: deadline,
    indexedAt: null,
    updatedAt: at,
  };
  await commitChange(
    [
      orConflict(
        statusMove(doc, 'Failed', { ...set, ...pendingEntry(deadline, doc) }),
        conflict('The document changed meanwhile; only a Failed document can be retried'),
      ),
      countMove(doc, 'Failed', 'Queued', { set: { updatedAt: at } }),
    ],
    change(doc, actor, 'retry', { kbId, title: doc.title, previousError: doc.error }),
    { now: at },
  );
  await enqueue(INDEX_DOCUMENT, { tenantId, kbId, documentId }, { id: `index-${documentId}-${now}` });
  return toDocument({ ...doc, ...set });
}
