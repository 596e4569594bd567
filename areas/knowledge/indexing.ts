import { publishEvent } from '#areas/outbound-webhooks/for-knowledge.ts';
import { instructionFlag } from './instruction-flags.ts';
import { embed } from '#areas/llm-gateway/for-knowledge.ts';
import { putAll } from '#shared/data/batch.ts';
import { commitChange, type Change } from '#shared/data/commit.ts';
import { get, getMany } from '#shared/data/read.ts';
import { keyId } from '#shared/data/keys.ts';
import { ApiError } from '#shared/http/errors.ts';
import { inParallel } from '#shared/runtime/in-parallel.ts';
import { logger } from '#shared/runtime/logger.ts';
import type { BatchItem } from '#shared/queue/messages.ts';
import { chunkText } from './chunking.ts';
import { emit } from '#shared/data/events.ts';
import { CHUNKS_CHANGED } from './events.ts';
import { indexedText, postingsOf, writePostings, type DocumentTerms } from './keyword/postings.ts';
import { fitsSegment, indexInSegments } from './keyword/segments.ts';
import { analyzerOf } from './keyword/terms.ts';
import { getObject } from './objects.ts';
import { extractText, ParseError } from './parse.ts';
import { purgeDocumentData, removeKeywordEntries, storedTerms } from './purge.ts';
import {
  chunkIdOf,
  chunkItem,
  documentKey,
  kbKey,
  type BaseRecord,
  type ChunkRecord,
  type DocumentRecord,
} from './records.ts';
import {
  countMove,
  isMoved,
  markFailed,
  markProcessingTogether,
  markProgress,
  MOVES_PER_COMMIT,
  statusMove,
} from './status.ts';
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

/** The indexing messages of one delivery: the ids of those to retry, each one's error logged. */
export async function indexDocumentBatch(items: BatchItem<DocumentRef>[]): Promise<string[]> {
  const outcomes = await indexDocuments(items.map((i) => i.payload));
  return items.flatMap((item, i) => {
    const out = outcomes[i];
    if (!(out instanceof Error)) return [];
    logger.error('document not indexed', { documentId: item.payload.documentId, error: out });
    return [item.messageId];
  });
}

/** A document parsed, chunked, stored and embedded: what its keyword entries and last step need. */
interface Prepared {
  doc: DocumentRecord;
  records: ChunkRecord[];
  keyword: DocumentTerms;
  started: number;
}

/**
 * One document through the pipeline: parse, chunk, store the chunks, embed them in batches through
 * the gateway (as the uploader), store the vectors, write their keyword entries, then Indexed
 * with the counts (the base's chunkCount in the same transaction). Progress is written as it runs.
 * A file that cannot be read ends Failed with its reason; anything else throws, so the queue retries
 * (a re-run overwrites the same chunk ids), and the stage deadline ends it Failed if it never succeeds.
 * A document deleted or failed meanwhile makes the last step fail: what was written is removed.
 */
export async function indexDocument(ref: DocumentRef): Promise<IndexOutcome> {
  const [out] = await indexDocuments([ref]);
  if (out instanceof Error) throw out;
  return out!;
}

/** Documents prepared at once by one delivery (each embeds through the gateway on its own). */
const PREPARE_AT_ONCE = 8;

/**
 * Documents one delivery brought, indexed together: each through the pipeline above, the keyword
 * entries of a base's documents written as shared segments (keyword/segments.ts; a document too
 * large for one is indexed alone in its own postings). Answers each document's outcome, or the
 * error its message is retried for, in the order given.
 */
export async function indexDocuments(refs: DocumentRef[]): Promise<(IndexOutcome | Error)[]> {
  const out: (IndexOutcome | Error)[] = new Array(refs.length);
  const byBase = new Map<string, number[]>();
  refs.forEach((r, i) => {
    const k = `${r.tenantId}|${r.kbId}`;
    const list = byBase.get(k) ?? [];
    if (!list.length) byBase.set(k, list);
    list.push(i);
  });
  for (const indexes of byBase.values()) {
    const { tenantId, kbId } = refs[indexes[0]!]!;
    const base = await get<BaseRecord>(kbKey(tenantId, kbId), { consistent: true });
    const prepared: { i: number; p: Prepared }[] = [];
    let started: Map<number, DocumentRecord>;
    try {
      started = base ? await start(refs, indexes) : new Map();
    } catch (err) {
      for (const i of indexes) out[i] = err as Error;
      continue;
    }
    await inParallel(indexes, PREPARE_AT_ONCE, async (i) => {
      const doc = started.get(i);
      try {
        const p = doc ? await prepare(refs[i]!, doc, base!) : { status: 'skipped' as const, chunks: 0 };
        if ('doc' in p) prepared.push({ i, p });
        else out[i] = p;
      } catch (err) {
        out[i] = err as Error;
      }
    });
    try {
      await writeKeyword(
        tenantId,
        kbId,
        prepared.map((x) => x.p),
      );
    } catch (err) {
      for (const { i } of prepared) out[i] = err as Error;
      continue;
    }
    try {
      const outcomes = await completeTogether(prepared.map(({ i, p }) => ({ ref: refs[i]!, p })));
      for (const [n, { i }] of prepared.entries()) out[i] = outcomes[n]!;
    } catch (err) {
      for (const { i } of prepared) out[i] ??= err as Error;
    }
    if (prepared.some(({ i }) => !(out[i] instanceof Error) && (out[i] as IndexOutcome).status === 'Indexed'))
      await emit(CHUNKS_CHANGED, { tenantId, cause: 'document indexed' });
  }
  return out;
}

/** The keyword entries of a base's prepared documents: shared segments, or alone when too large for one. */
async function writeKeyword(tenantId: string, kbId: string, prepared: Prepared[]) {
  const members = prepared.map((p) => ({ documentId: p.doc.id, chunks: p.records.length, terms: p.keyword }));
  const alone = members.filter((m) => !fitsSegment(m));
  for (const m of alone) await writePostings(tenantId, kbId, m.terms);
  const shared = members.filter(fitsSegment);
  if (!shared.length) return;
  await indexInSegments(tenantId, kbId, shared, async (documentId) => {
    const stored = await storedTerms({ tenantId, kbId, documentId });
    return stored && { documentId, chunks: stored.chunks, terms: stored.terms };
  });
}

/**
 * The documents of one base (by their index in `refs`) that go on, each Processing: read in one
 * batch, a stuck one ended Failed, the Queued ones moved together. A document gone, moved or
 * already done is left out (its message needs nothing more).
 */
async function start(refs: DocumentRef[], indexes: number[]): Promise<Map<number, DocumentRecord>> {
  const keyList = indexes.map((i) => documentKey(refs[i]!.tenantId, refs[i]!.kbId, refs[i]!.documentId));
  const found = await getMany<DocumentRecord>(keyList, { consistent: true });
  const live = new Map<number, DocumentRecord>();
  for (const [n, i] of indexes.entries()) {
    const item = found.get(keyId(keyList[n]!));
    if (!item) continue;
    const doc = await failIfStuck(item);
    if (doc.status === 'Queued' || doc.status === 'Processing') live.set(i, doc);
  }
  const queued = [...live.values()].filter((d) => d.status === 'Queued');
  const deadline = new Date(Date.now() + STAGE_DEADLINE_MS.Processing).toISOString();
  const moved = new Map((await markProcessingTogether(queued, deadline)).map((d) => [d.id, d]));
  for (const [i, doc] of live)
    if (doc.status === 'Queued') {
      const now = moved.get(doc.id);
      if (now) live.set(i, now);
      else live.delete(i);
    }
  return live;
}

/** Parse, chunk, store and embed; Failed when it cannot go on. */
async function prepare(ref: DocumentRef, doc: DocumentRecord, base: BaseRecord): Promise<Prepared | IndexOutcome> {
  const started = Date.now();

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
  return { doc, records, keyword: postingsOf(doc.id, records, analyzer), started };
}

/** A prepared document's move to Indexed with its counts, and its audit entry. */
function indexedMove({ doc, records, keyword, started }: Prepared, now: string) {
  const tokenCount = records.reduce((n, c) => n + c.tokenCount, 0);
  const move = statusMove(
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
  );
  const change: Change = {
    tenantId: doc.tenantId,
    actor: null,
    entityType: 'KnowledgeDocument',
    entityId: doc.id,
    action: 'indexed',
    changes: { chunkCount: records.length, tokenCount, ms: Date.now() - started },
  };
  return { move, change };
}

/**
 * Prepared documents of one base Indexed, MOVES_PER_COMMIT a transaction with the base's counts
 * moved once for them; a transaction refused because one was deleted or failed meanwhile is redone
 * one document at a time, so only that one's writes are removed.
 */
async function completeTogether(prepared: { ref: DocumentRef; p: Prepared }[]): Promise<IndexOutcome[]> {
  const out: IndexOutcome[] = [];
  for (let i = 0; i < prepared.length; i += MOVES_PER_COMMIT) {
    const group = prepared.slice(i, i + MOVES_PER_COMMIT);
    if (group.length === 1) {
      out.push(await complete(group[0]!.ref, group[0]!.p));
      continue;
    }
    const now = new Date().toISOString();
    const moves = group.map(({ p }) => indexedMove(p, now));
    const count = (f: (p: Prepared) => number) => group.reduce((n, { p }) => n + f(p), 0);
    try {
      await commitChange(
        [
          ...moves.map((m) => m.move),
          countMove(
            group[0]!.p.doc,
            'Processing',
            'Indexed',
            {
              set: { updatedAt: now },
              add: { chunkCount: count((p) => p.records.length), keywordTerms: count((p) => p.keyword.length) },
            },
            group.length,
          ),
        ],
        moves.map((m) => m.change),
        { now },
      );
      for (const { p } of group) out.push(await published(p));
    } catch (err) {
      if (!isMoved(err)) throw err;
      for (const { ref, p } of group) out.push(await complete(ref, p));
    }
  }
  return out;
}

/** Indexed with its counts, or, when it was deleted or failed meanwhile, what was written removed. */
async function complete(ref: DocumentRef, p: Prepared): Promise<IndexOutcome> {
  const now = new Date().toISOString();
  const { move, change } = indexedMove(p, now);
  try {
    await commitChange(
      [
        move,
        countMove(p.doc, 'Processing', 'Indexed', {
          set: { updatedAt: now },
          add: { chunkCount: p.records.length, keywordTerms: p.keyword.length },
        }),
      ],
      change,
      { now },
    );
  } catch (err) {
    if (!isMoved(err)) throw err;
    logger.info('document deleted or failed while indexing; removing what was written', { documentId: p.doc.id });
    // Its keyword entries go first, from the chunks in hand: a base deleted meanwhile may already be purged.
    await removeKeywordEntries(ref, p.keyword);
    await purgeDocumentData(ref, { dropIndexWhenBaseGone: true, keepOriginal: true });
    return { status: 'skipped', chunks: 0 };
  }
  return published(p);
}

/** Subscribers told (document.indexed). */
async function published({ doc, records }: Prepared): Promise<IndexOutcome> {
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
