import { publishEvent } from '#areas/outbound-webhooks/for-knowledge.ts';
import { instructionFlag } from './instruction-flags.ts';
import { embed } from '#areas/llm-gateway/for-knowledge.ts';
import { putAll } from '#shared/data/batch.ts';
import { commitChange } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { ApiError } from '#shared/http/errors.ts';
import { logger } from '#shared/runtime/logger.ts';
import { chunkText } from './chunking.ts';
import { emit } from '#shared/data/events.ts';
import { CHUNKS_CHANGED } from './events.ts';
import { indexedText, postingsOf, removePostings, writePostings } from './keyword/postings.ts';
import { analyzerOf } from './keyword/terms.ts';
import { getObject } from './objects.ts';
import { extractText, ParseError } from './parse.ts';
import { purgeDocumentData } from './purge.ts';
import {
  chunkIdOf,
  chunkItem,
  documentKey,
  kbKey,
  type BaseRecord,
  type ChunkRecord,
  type DocumentRecord,
} from './records.ts';
import { countMove, isMoved, markFailed, markProcessing, markProgress, statusMove } from './status.ts';
import { failIfStuck } from './stuck.ts';
import { vectorStore } from './vectors/port.ts';
import { EMBED_BATCH, STAGE_DEADLINE_MS, VECTOR_WRITE_BATCH, type KnowledgeFileType } from './vocabulary.ts';

interface DocumentRef {
  tenantId: string;
  kbId: string;
  documentId: string;
}

const flagOf = (text: string) => {
  const reason = instructionFlag(text);
  return { flagged: reason !== null, flagReason: reason };
};

/** What one run did, for the bench and logs. */
export interface IndexOutcome {
  status: 'Indexed' | 'Failed' | 'skipped';
  chunks: number;
}

/**
 * One document through the pipeline: parse, chunk, store the chunks, embed them in batches through
 * the gateway (as the uploader), store the vectors, write their postings to the keyword index, then Indexed
 * with the counts (the base's chunkCount in the same transaction). Progress is written as it runs.
 * A file that cannot be read ends Failed with its reason; anything else throws, so the queue retries
 * (a re-run overwrites the same chunk ids), and the stage deadline ends it Failed if it never succeeds.
 * A document deleted or failed meanwhile makes the last step fail: what was written is removed.
 */
export async function indexDocument(ref: DocumentRef): Promise<IndexOutcome> {
  const [found, base] = await Promise.all([
    get<DocumentRecord>(documentKey(ref.tenantId, ref.kbId, ref.documentId), { consistent: true }),
    get<BaseRecord>(kbKey(ref.tenantId, ref.kbId), { consistent: true }),
  ]);
  if (!found || !base) return { status: 'skipped', chunks: 0 };
  let doc = await failIfStuck(found);
  if (doc.status !== 'Queued' && doc.status !== 'Processing') return { status: 'skipped', chunks: 0 };
  const started = Date.now();
  if (doc.status === 'Queued')
    doc = await markProcessing(doc, new Date(started + STAGE_DEADLINE_MS.Processing).toISOString());

  let chunks: Awaited<ReturnType<typeof chunkText>>;
  try {
    const bytes = await getObject(doc.objectKey);
    if (!bytes) throw new ParseError('The uploaded file is missing; upload it again');
    const text = await extractText(doc.contentType as KnowledgeFileType, bytes);
    chunks = await chunkText(text, Number(base.chunkSize), Number(base.chunkOverlap));
    if (!chunks.length) throw new ParseError('The document holds no text');
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
    await markFailed(doc, err.message).catch((e) => (isMoved(e) ? undefined : Promise.reject(e)));
    return { status: 'Failed', chunks: 0 };
  }
  const d = doc;
  const analyzer = analyzerOf(base.keywordAnalyzer);
  const records: ChunkRecord[] = chunks.map((c, position) => ({
    chunkId: chunkIdOf(d.id, position),
    tenantId: d.tenantId,
    kbId: d.kbId,
    documentId: d.id,
    position,
    text: c.text,
    tokenCount: c.tokenCount,
    ...flagOf(c.text),
    ...(d.title ? { title: d.title } : {}),
    analyzer,
  }));
  // A document embedded in one call is done about as soon as a progress write would land: its
  // progress stays at 5 until Indexed, saving three writes of the few a short document costs.
  const showProgress = records.length > EMBED_BATCH;
  if (showProgress) await markProgress(doc, 15);
  await putAll(records.map(chunkItem));
  if (showProgress) await markProgress(doc, 25);

  try {
    await embedAndStore(doc, base, records, showProgress);
  } catch (err) {
    // The gateway refused (the tenant's token allowance used up, a model not in the catalog): retrying
    // cannot help, so the document ends Failed with the gateway's reason and what was written goes.
    if (!(err instanceof ApiError) || err.status >= 500) throw err;
    await markFailed(doc, `Embedding was refused: ${err.message}`).catch((e) =>
      isMoved(e) ? undefined : Promise.reject(e),
    );
    await purgeDocumentData(ref, { keepOriginal: true });
    return { status: 'Failed', chunks: 0 };
  }
  const keyword = postingsOf(doc.id, records, analyzer);
  await writePostings(doc.tenantId, doc.kbId, keyword);

  const tokenCount = records.reduce((n, c) => n + c.tokenCount, 0);
  const now = new Date().toISOString();
  try {
    await commitChange(
      [
        statusMove(
          doc,
          'Processing',
          {
            status: 'Indexed',
            progressPercent: 100,
            chunkCount: records.length,
            tokenCount,
            flaggedChunks: records.filter((c) => c.flagged).length,
            keywordTerms: keyword.length,
            error: null,
            stageDeadline: null,
            indexedAt: now,
            updatedAt: now,
          },
          { remove: ['gsi2pk', 'gsi2sk'] },
        ),
        countMove(doc, 'Processing', 'Indexed', {
          set: { updatedAt: now },
          add: { chunkCount: records.length, keywordTerms: keyword.length },
        }),
      ],
      {
        tenantId: doc.tenantId,
        actor: null,
        entityType: 'KnowledgeDocument',
        entityId: doc.id,
        action: 'indexed',
        changes: { chunkCount: records.length, tokenCount, ms: Date.now() - started },
      },
      { now },
    );
  } catch (err) {
    if (!isMoved(err)) throw err;
    logger.info('document deleted or failed while indexing; removing what was written', { documentId: doc.id });
    // Its postings go first, from the chunks in hand: a base deleted meanwhile may already be purged.
    await removePostings(doc.tenantId, doc.kbId, keyword);
    await purgeDocumentData(ref, { dropIndexWhenBaseGone: true, keepOriginal: true });
    return { status: 'skipped', chunks: 0 };
  }
  await emit(CHUNKS_CHANGED, { tenantId: doc.tenantId, cause: 'document indexed' });
  await publishEvent(doc.tenantId, 'document.indexed', {
    documentId: doc.id,
    kbId: doc.kbId,
    title: doc.title,
    status: 'Indexed',
    chunkCount: records.length,
  });
  return { status: 'Indexed', chunks: records.length };
}

/** Embeddings in batches through the gateway (as the uploader), each batch's vectors written as they come. */
async function embedAndStore(doc: DocumentRecord, base: BaseRecord, records: ChunkRecord[], showProgress: boolean) {
  const store = await vectorStore();
  const index = { tenantId: doc.tenantId, kbId: doc.kbId };
  let ensured = false;
  for (let i = 0; i < records.length; i += EMBED_BATCH) {
    const batch = records.slice(i, i + EMBED_BATCH);
    const { vectors } = await embed({
      tenantId: doc.tenantId,
      caller: { kind: 'user', userId: doc.uploadedBy },
      requestId: `${doc.id}-embed-${i / EMBED_BATCH}`,
      model: base.embeddingModelId,
      // The title too: a chunk's words often say what it is about only beside it.
      input: batch.map(indexedText),
    });
    if (!ensured) {
      await store.ensureIndex(index, vectors[0]!.length);
      ensured = true;
    }
    const withVectors = batch.map((c, j) => ({
      key: c.chunkId,
      vector: vectors[j]!,
      metadata: { tenantId: c.tenantId, kbId: c.kbId, documentId: c.documentId, position: c.position },
    }));
    for (let k = 0; k < withVectors.length; k += VECTOR_WRITE_BATCH)
      await store.put(index, withVectors.slice(k, k + VECTOR_WRITE_BATCH));
    if (showProgress) await markProgress(doc, 25 + (65 * Math.min(records.length, i + EMBED_BATCH)) / records.length);
  }
}
