import { publishEvents } from '#areas/outbound-webhooks/for-knowledge.ts';
import { instructionFlag } from './instruction-flags.ts';
import { embed } from '#areas/llm-gateway/for-knowledge.ts';
import { sha256 } from '#shared/auth/opaque.ts';
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

/** Documents read and chunked at once by one delivery, and embedding calls made at once. */
const PREPARE_AT_ONCE = 8;

/**
 * Bytes of originals one wave of a delivery reads and holds at once: a delivery of large files is
 * indexed a wave at a time, so its memory is bounded by this (the worker has 1,024 MB), not by its
 * batch size. A file larger than this is a wave alone.
 */
export const WAVE_BYTES = 32 * 1024 * 1024;
/**
 * Past this, a delivery's waves not begun are left for a redelivery (their messages retried; the
 * first wave always runs): a wave begun before it ends well within the worker's 300 s.
 */
export const DELIVERY_BUDGET_MS = 120_000;

/**
 * Documents one delivery brought, indexed together: each through the pipeline above, the keyword
 * entries of a base's documents written as shared segments (keyword/segments.ts; a document too
 * large for one is indexed alone in its own postings), a wave of WAVE_BYTES at a time. Answers each
 * document's outcome, or the error its message is retried for, in the order given.
 */
export async function indexDocuments(
  refs: DocumentRef[],
  opts: { waveBytes?: number; budgetMs?: number } = {},
): Promise<(IndexOutcome | Error)[]> {
  const began = Date.now();
  let ran = false;
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
    let started: Map<number, DocumentRecord>;
    try {
      started = base ? await start(refs, indexes) : new Map();
    } catch (err) {
      for (const i of indexes) out[i] = err as Error;
      continue;
    }
    for (const wave of wavesOf(indexes, started, opts.waveBytes ?? WAVE_BYTES)) {
      // The first wave always runs, so every delivery gets somewhere.
      if (ran && Date.now() - began > (opts.budgetMs ?? DELIVERY_BUDGET_MS)) {
        for (const i of wave) out[i] = new Error('Left for a redelivery: the delivery ran out of time');
        continue;
      }
      await indexWave(refs, wave, started, base!, out);
      ran = true;
    }
  }
  return out;
}

/** A base's documents of one delivery in waves of at most `bytes` of originals (a larger one alone). */
function wavesOf(indexes: number[], started: Map<number, DocumentRecord>, bytes: number): number[][] {
  const waves: number[][] = [];
  let wave: number[] = [];
  let size = 0;
  for (const i of indexes) {
    const doc = started.get(i);
    const own = doc ? Math.max(1, doc.sizeBytes) : 0;
    if (wave.length && size + own > bytes) {
      waves.push(wave);
      wave = [];
      size = 0;
    }
    wave.push(i);
    size += own;
  }
  if (wave.length) waves.push(wave);
  return waves;
}

/** One wave: read, embedded, its keyword entries written, moved to Indexed together; outcomes into `out`. */
async function indexWave(
  refs: DocumentRef[],
  wave: number[],
  started: Map<number, DocumentRecord>,
  base: BaseRecord,
  out: (IndexOutcome | Error)[],
) {
  const { tenantId, id: kbId } = base;
  const read: Read[] = [];
  await inParallel(wave, PREPARE_AT_ONCE, async (i) => {
    const doc = started.get(i);
    try {
      const r = doc ? await readDocument(refs[i]!, doc, base) : { status: 'skipped' as const, chunks: 0 };
      if ('doc' in r) read.push({ ...r, i });
      else out[i] = r;
    } catch (err) {
      out[i] = err as Error;
    }
  });
  const prepared: { i: number; p: Prepared }[] = [];
  for (const [r, done] of await embedAll(base, read)) {
    if ('doc' in done) prepared.push({ i: r.i, p: done });
    else out[r.i] = done;
  }
  try {
    await writeKeyword(
      tenantId,
      kbId,
      prepared.map((x) => x.p),
    );
  } catch (err) {
    for (const { i } of prepared) out[i] = err as Error;
    return;
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

/** A document parsed and chunked, its chunks not stored yet; `i` is its place in the delivery. */
interface Read {
  i: number;
  ref: DocumentRef;
  doc: DocumentRecord;
  records: ChunkRecord[];
  started: number;
}

/** Parse and chunk; Failed when the file cannot be read. */
async function readDocument(
  ref: DocumentRef,
  doc: DocumentRecord,
  base: BaseRecord,
): Promise<Omit<Read, 'i'> | IndexOutcome> {
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
  const analyzer = analyzerOf(base.keywordAnalyzer);
  const records: ChunkRecord[] = chunks.map((c, position) => ({
    chunkId: chunkIdOf(doc.id, position),
    tenantId: doc.tenantId,
    kbId: doc.kbId,
    documentId: doc.id,
    position,
    text: c.text,
    tokenCount: c.tokenCount,
    ...flagOf(c.text),
    ...(doc.title ? { title: doc.title } : {}),
    analyzer,
  }));
  return { ref, doc, records, started };
}

type Embedded = [Read, Prepared | IndexOutcome | Error];

/**
 * The read documents' chunks stored and embedded. A document of more than one embedding call goes
 * alone, its progress written as it runs. The others' chunks are stored together and embedded
 * several documents a call, EMBED_BATCH chunks at most, each call of one uploader's documents (it
 * is made as them and metered to them): a refusal fails the documents of that call. A document
 * embedded in one call is done about as soon as a progress write would land, so its progress
 * stays at 5 until Indexed.
 */
async function embedAll(base: BaseRecord, read: Read[]): Promise<Embedded[]> {
  const done: Embedded[] = [];
  const calls: Read[][] = read.filter((r) => r.records.length > EMBED_BATCH).map((r) => [r]);
  const small = read.filter((r) => r.records.length <= EMBED_BATCH);
  try {
    await putAll(small.flatMap((r) => r.records.map(chunkItem)));
    calls.push(...packByUploader(small));
  } catch (err) {
    for (const r of small) done.push([r, err as Error]);
  }
  await inParallel(calls, PREPARE_AT_ONCE, async (group) => {
    done.push(...(await embedGroup(base, group)));
  });
  return done;
}

/** Small documents in embedding calls: one uploader's a call, whole documents, EMBED_BATCH chunks at most. */
function packByUploader(read: Read[]): Read[][] {
  const calls: Read[][] = [];
  const open = new Map<string, { group: Read[]; chunks: number }>();
  for (const r of read) {
    const by = r.doc.uploadedBy;
    let call = open.get(by);
    if (call && call.chunks + r.records.length > EMBED_BATCH) call = undefined;
    if (!call) {
      call = { group: [], chunks: 0 };
      open.set(by, call);
      calls.push(call.group);
    }
    call.group.push(r);
    call.chunks += r.records.length;
  }
  return calls;
}

/**
 * One call's documents embedded and their vectors stored (a single large document's chunks first
 * stored with its progress shown); each ends prepared, Failed when the gateway refused, or with the
 * error its message is retried for.
 */
async function embedGroup(base: BaseRecord, group: Read[]): Promise<Embedded[]> {
  const alone = group.length === 1 && group[0]!.records.length > EMBED_BATCH ? group[0]! : null;
  try {
    if (alone) {
      await markProgress(alone.doc, 15);
      await putAll(alone.records.map(chunkItem));
      await markProgress(alone.doc, 25);
    }
    await embedAndStore(base, group, alone);
  } catch (err) {
    // The gateway refused (the tenant's token allowance used up, a model not in the catalog): retrying
    // cannot help, so the documents end Failed with the gateway's reason and what was written goes.
    if (!(err instanceof ApiError) || err.status >= 500) return group.map((r) => [r, err as Error]);
    return Promise.all(group.map(async (r): Promise<Embedded> => [r, await refused(r, err as ApiError)]));
  }
  const analyzer = analyzerOf(base.keywordAnalyzer);
  return group.map((r) => [
    r,
    { doc: r.doc, records: r.records, keyword: postingsOf(r.doc.id, r.records, analyzer), started: r.started },
  ]);
}

async function refused({ ref, doc }: Read, err: ApiError): Promise<IndexOutcome> {
  await markFailed(doc, `Embedding was refused: ${err.message}`).catch((e) =>
    isMoved(e) ? undefined : Promise.reject(e),
  );
  await purgeDocumentData(ref, { keepOriginal: true });
  return { status: 'Failed', chunks: 0 };
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
      out.push(...(await published(group.map(({ p }) => p))));
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
  return (await published([p]))[0]!;
}

/** Subscribers told (document.indexed). */
async function published(indexed: Prepared[]): Promise<IndexOutcome[]> {
  await publishEvents(
    indexed[0]!.doc.tenantId,
    indexed.map(({ doc, records }) => ({
      type: 'document.indexed' as const,
      data: { documentId: doc.id, kbId: doc.kbId, title: doc.title, status: 'Indexed', chunkCount: records.length },
    })),
  );
  return indexed.map(({ records }) => ({ status: 'Indexed', chunks: records.length }));
}

/**
 * Embeddings in batches through the gateway (as the uploader), each batch's vectors written as they
 * come. A call's request id is fixed by the documents it embeds: a redelivery of the same
 * documents is recorded once (one that brings them with others is a new call, metered again).
 */
async function embedAndStore(base: BaseRecord, group: Read[], progressOf: Read | null) {
  const store = await vectorStore();
  const { tenantId, kbId, uploadedBy } = group[0]!.doc;
  const index = { tenantId, kbId };
  const records = group.flatMap((r) => r.records);
  const idOf = group.length === 1 ? group[0]!.doc.id : sha256(group.map((r) => r.doc.id).join(',')).slice(0, 32);
  let ensured = false;
  for (let i = 0; i < records.length; i += EMBED_BATCH) {
    const batch = records.slice(i, i + EMBED_BATCH);
    const { vectors } = await embed({
      tenantId,
      caller: { kind: 'user', userId: uploadedBy },
      requestId: `${idOf}-embed-${i / EMBED_BATCH}`,
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
    if (progressOf)
      await markProgress(progressOf.doc, 25 + (65 * Math.min(records.length, i + EMBED_BATCH)) / records.length);
  }
}
