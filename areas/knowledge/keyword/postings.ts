import { deleteAll } from '#shared/data/batch.ts';
import { commitChange, type TransactItem, updateItem } from '#shared/data/commit.ts';
import { partitionKeys } from '#shared/data/query.ts';
import { ApiError } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import { inParallel } from '#shared/runtime/in-parallel.ts';
import { IMPACT_SCALE, postingKey, termList, termStatKey } from '../records.ts';
import { K1, tfWeight } from './bm25.ts';
import { termCounts, type Analyzer } from './terms.ts';

/**
 * A document's part of its base's keyword index (docs/decisions/knowledge.md, "Keyword index"): for
 * each distinct term, one posting item per term and document (split in parts of PART_ENTRIES
 * chunks) listing `position:tf:length` of every chunk holding it, and the term's document frequency
 * (`df`, in chunks) raised by as many chunks. Writing or removing a document touches only its own
 * terms: O(the document) whatever the base holds. Documents indexed together share posting items
 * instead (segments.ts); a document too large for a segment is written alone, as here.
 *
 * Each transaction puts (or deletes) the postings of up to TERMS_PER_WRITE terms under the
 * condition that they are absent (present) and moves those terms' df in the same transaction. A
 * re-delivered message builds the same groups from the same chunks, so a group already written is
 * refused whole by its conditions and skipped: df never counts a document twice, and two documents
 * indexed at once only touch the same df items through atomic ADDs.
 */
export interface Posting {
  term: string;
  documentId: string;
  part: number;
  /** max tf weight of the part's chunks, 0..IMPACT_SCALE: the read order when a term is too common to read whole. */
  impact: number;
  /** `position:tf:length` per chunk, comma-separated. */
  entries: string;
  chunks: number;
}

/** Chunks per posting item: keeps an item far below DynamoDB's 400 KB whatever a document's size. */
export const PART_ENTRIES = 2_000;
/** Terms per transaction: each brings a df update and usually one posting (at most 100 items a transaction). */
export const TERMS_PER_WRITE = 45;
/** Transactions of one document in flight at once. */
export const PARALLEL_WRITES = 4;

export interface DocumentTerms {
  postings: Map<string, Posting[]>;
  /** The document's chunks' total length in terms (the base's average length moves by it). */
  length: number;
}

/** What a chunk holds for the keyword index. */
export interface KeywordChunk {
  position: number;
  text: string;
  /** The document's title: its words count in every chunk, as a search engine indexes title and body together. */
  title?: string | null;
}

/** What the indexes read of a chunk: its document's title, then its text. */
export const indexedText = (c: KeywordChunk) => (c.title ? `${c.title}\n\n${c.text}` : c.text);

/**
 * The postings of a document's chunks. The impact uses the document's own average chunk length
 * (not the base's, which moves): the same chunks always give the same keys, so removal finds them.
 */
export function postingsOf(documentId: string, chunks: KeywordChunk[], analyzer: Analyzer): DocumentTerms {
  const per = chunks.map((c) => ({ position: c.position, ...termCounts(indexedText(c), analyzer) }));
  const length = per.reduce((n, c) => n + c.length, 0);
  const avg = Math.max(1, length / Math.max(1, per.length));
  const byTerm = new Map<string, { position: number; tf: number; length: number }[]>();
  for (const c of per)
    for (const [term, tf] of c.counts) {
      const list = byTerm.get(term) ?? [];
      if (!list.length) byTerm.set(term, list);
      list.push({ position: c.position, tf, length: c.length });
    }
  const postings = new Map<string, Posting[]>();
  for (const [term, list] of byTerm) {
    const parts: Posting[] = [];
    for (let i = 0; i < list.length; i += PART_ENTRIES) {
      const slice = list.slice(i, i + PART_ENTRIES);
      const best = Math.max(...slice.map((e) => tfWeight(e.tf, e.length, avg)));
      parts.push({
        term,
        documentId,
        part: i / PART_ENTRIES,
        impact: Math.min(IMPACT_SCALE, Math.round((best / (K1 + 1)) * IMPACT_SCALE)),
        entries: slice.map((e) => `${e.position}:${e.tf}:${e.length}`).join(','),
        chunks: slice.length,
      });
    }
    postings.set(term, parts);
  }
  return { postings, length };
}

/**
 * Calls `each` for every `position:tf:length` of a posting's entries, reading the digits in place: a
 * retrieve reads tens of thousands of entries, and splitting them into strings was most of its time.
 */
export function eachEntry(entries: string, each: (position: number, tf: number, length: number) => void) {
  const fields = [0, 0, 0];
  let field = 0;
  for (let i = 0; i <= entries.length; i++) {
    const code = i < entries.length ? entries.charCodeAt(i) : 44;
    if (code === 58) field++;
    else if (code === 44) {
      each(fields[0]!, fields[1]!, fields[2]!);
      fields[0] = fields[1] = fields[2] = field = 0;
    } else fields[field] = fields[field]! * 10 + (code - 48);
  }
}

/** Deterministic groups of terms (sorted), so every run of one document builds the same transactions. */
function groups(doc: DocumentTerms): Posting[][][] {
  const sorted = [...doc.postings.keys()].sort();
  const out: Posting[][][] = [];
  let group: Posting[][] = [];
  let items = 0;
  for (const term of sorted) {
    const parts = doc.postings.get(term)!;
    if (group.length && (group.length >= TERMS_PER_WRITE || items + parts.length + 1 > 99)) {
      out.push(group);
      group = [];
      items = 0;
    }
    group.push(parts);
    items += parts.length + 1;
  }
  if (group.length) out.push(group);
  return out;
}

const isRefused = (err: unknown) => err instanceof ApiError && err.status === 409;
const isContended = (err: unknown) =>
  (err as { name?: string }).name === 'TransactionCanceledException' ||
  (err as { name?: string }).name === 'TransactionConflictException';

/** One group's transaction; a group refused by its conditions was done before (or never written) and is skipped. */
export async function commitGroup(items: TransactItem[]) {
  // commitChange retries a held item six times; documents sharing common terms can hold them longer.
  for (let attempt = 1; ; attempt++) {
    try {
      await commitChange(
        items.map((item) => ({ ...item, onConflict: 'keyword postings already in this state' })),
        null,
      );
      return;
    } catch (err) {
      if (isRefused(err)) return;
      if (!isContended(err) || attempt >= 8) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 50 * attempt));
    }
  }
}

export const dfMove = (tenantId: string, kbId: string, term: string, by: number): TransactItem =>
  updateItem(termStatKey(tenantId, kbId, term), {}, { add: { df: by } });

export async function writePostings(tenantId: string, kbId: string, doc: DocumentTerms): Promise<void> {
  await inParallel(groups(doc), PARALLEL_WRITES, (group) =>
    commitGroup(
      group.flatMap((parts) => [
        ...parts.map(
          (p): TransactItem => ({
            Put: {
              TableName: config.tableName,
              Item: {
                ...postingKey(tenantId, kbId, p.term, p),
                documentId: p.documentId,
                n: p.chunks,
                c: p.entries,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          }),
        ),
        dfMove(
          tenantId,
          kbId,
          parts[0]!.term,
          parts.reduce((n, p) => n + p.chunks, 0),
        ),
      ]),
    ),
  );
}

export async function removePostings(tenantId: string, kbId: string, doc: DocumentTerms): Promise<void> {
  await inParallel(groups(doc), PARALLEL_WRITES, (group) =>
    commitGroup(
      group.flatMap((parts) => [
        ...parts.map(
          (p): TransactItem => ({
            Delete: {
              TableName: config.tableName,
              Key: postingKey(tenantId, kbId, p.term, p),
              ConditionExpression: 'attribute_exists(pk)',
            },
          }),
        ),
        dfMove(tenantId, kbId, parts[0]!.term, -parts.reduce((n, p) => n + p.chunks, 0)),
      ]),
    ),
  );
}

/** A deleted base: every item of each term's partition (its df and all postings), found by the terms its chunks held. */
export async function dropTerms(tenantId: string, kbId: string, terms: Iterable<string>): Promise<void> {
  for (const term of terms) await deleteAll(await partitionKeys(termList(tenantId, kbId, term)));
}
