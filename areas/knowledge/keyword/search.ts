import { keyId } from '#shared/data/keys.ts';
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/platform/aws.ts';
import { getMany } from '#shared/data/read.ts';
import { config } from '#shared/platform/config.ts';
import { POSTING_PREFIX, termList, termStatKey, type BaseRecord } from '../records.ts';
import { avgLength, idf, termScore, type BaseStats } from './bm25.ts';
import { eachEntry } from './postings.ts';
import { analyzerOf, queryTerms } from './terms.ts';

/**
 * BM25 over a base's postings in DynamoDB (docs/decisions/knowledge.md, "Keyword index"): one
 * BatchGetItem for the query terms' document frequencies, then one Query per term (in parallel)
 * reading its postings best impact first, about POSTINGS_READ documents a term in whole items (a
 * segment's item holds many; COMMON_TERM_POSTINGS for a term in most of the base, whose idf is low). A term held by more documents than that
 * contributes only through its best postings; every score is computed exactly from the base's global statistics (N chunks,
 * average length, the term's df). Memory and reads are bounded by the query, not by the base.
 */
export const POSTINGS_READ = 300;
/**
 * A term in more than half the base's chunks weighs at most ln 2 against a rare term's ln N, yet its
 * postings list most of the base: its strongest COMMON_TERM_POSTINGS documents are read instead.
 */
export const COMMON_TERM_POSTINGS = 30;

export const postingsToRead = (stats: BaseStats, df: number) =>
  df * 2 > stats.chunks ? COMMON_TERM_POSTINGS : POSTINGS_READ;

export interface KeywordHit {
  documentId: string;
  position: number;
  score: number;
}

export interface KeywordResult {
  /** The best `limit` chunks read, best first (ties by document, then position). */
  best: KeywordHit[];
  /** The BM25 score of any chunk read (0 for one no query term matched): vector candidates get theirs. */
  scoreOf(documentId: string, position: number): number;
}

const before = (a: KeywordHit, b: KeywordHit) =>
  a.score > b.score ||
  (a.score === b.score && (a.documentId < b.documentId || (a.documentId === b.documentId && a.position < b.position)));

/** The `limit` best of many hits in one pass, without sorting them all (a common word matches thousands). */
function bestOf(hits: Iterable<KeywordHit>, limit: number): KeywordHit[] {
  const best: KeywordHit[] = [];
  if (limit < 1) return best;
  for (const hit of hits) {
    if (best.length === limit && !before(hit, best[limit - 1]!)) continue;
    let to = best.length === limit ? limit - 1 : best.length;
    while (to > 0 && before(hit, best[to - 1]!)) {
      best[to] = best[to - 1]!;
      to--;
    }
    best[to] = hit;
  }
  return best;
}

type PostingItem = { documentId?: string; c?: string; e?: Record<string, string> };
const documentsIn = (p: PostingItem) => (p.e ? Object.keys(p.e).length : 1);
/** The first page of a term's postings: two items, a common or a rare term's bound when they are segments' (up to 500 documents each). */
const FIRST_PAGE = 2;

/**
 * A term's postings, best first, until `documents` documents are read (whole items: at most one
 * item's more). A rare term's are read in one request; a common one's pages are sized by the
 * documents an item held so far, so a document's own postings take about two requests and a
 * segment's as many items as the bound needs, not a page of them.
 */
async function postingsUpTo(input: QueryCommandInput, documents: number, df: number): Promise<PostingItem[]> {
  const items: PostingItem[] = [];
  let read = 0;
  // A term in no more chunks than the bound is read whole: it has no more items than chunks.
  let limit = df <= documents ? df : Math.min(FIRST_PAGE, documents);
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(new QueryCommand({ ...input, Limit: limit, ExclusiveStartKey }));
    for (const item of (out.Items ?? []) as PostingItem[]) {
      items.push(item);
      read += documentsIn(item);
    }
    ExclusiveStartKey = out.LastEvaluatedKey;
    limit = Math.max(1, Math.ceil((documents - read) / Math.max(1, read / Math.max(1, items.length))));
  } while (ExclusiveStartKey && read < documents);
  return items;
}

export const statsOf = (base: Pick<BaseRecord, 'chunkCount' | 'keywordTerms'>): BaseStats => ({
  chunks: Math.max(0, Number(base.chunkCount ?? 0)),
  terms: Math.max(0, Number(base.keywordTerms ?? 0)),
});

/** The chunks read that match a query term, scored: the best `limit`, and any one's score. */
export async function searchKeyword(
  base: Pick<BaseRecord, 'tenantId' | 'id' | 'chunkCount' | 'keywordTerms' | 'keywordAnalyzer'>,
  query: string,
  limit: number,
): Promise<KeywordResult> {
  const list = queryTerms(query, analyzerOf(base.keywordAnalyzer));
  if (!list.length) return NO_KEYWORD_HITS;
  const stats = statsOf(base);
  const avgdl = avgLength(stats);
  const dfItems = await getMany<{ df?: number }>(list.map((t) => termStatKey(base.tenantId, base.id, t)));
  const present = list
    .map((term) => ({ term, df: Number(dfItems.get(keyId(termStatKey(base.tenantId, base.id, term)))?.df ?? 0) }))
    .filter((t) => t.df > 0);
  // Per document, then per position: one lookup by document a posting, not a string key an entry.
  const scores = new Map<string, Map<number, KeywordHit>>();
  await Promise.all(
    present.map(async ({ term, df }) => {
      const weight = idf(stats, df);
      const postings = await postingsUpTo(
        {
          TableName: config.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
          ExpressionAttributeValues: { ':pk': termList(base.tenantId, base.id, term), ':p': POSTING_PREFIX },
          ProjectionExpression: 'documentId, c, e',
        },
        postingsToRead(stats, df),
        df,
      );
      const add = (documentId: string, entries: string) => {
        const ofDocument = scores.get(documentId) ?? new Map<number, KeywordHit>();
        scores.set(documentId, ofDocument);
        eachEntry(entries, (position, tf, length) => {
          const hit = ofDocument.get(position);
          const score = termScore(weight, tf, length, avgdl);
          if (hit) hit.score += score;
          else ofDocument.set(position, { documentId, position, score });
        });
      };
      // A document's own posting (documentId, c), or a segment's (e: each member's entries).
      for (const p of postings)
        if (p.e) for (const [documentId, entries] of Object.entries(p.e)) add(documentId, entries);
        else if (p.documentId && p.c) add(p.documentId, p.c);
    }),
  );
  function* all() {
    for (const chunks of scores.values()) yield* chunks.values();
  }
  return {
    best: bestOf(all(), limit),
    scoreOf: (documentId, position) => scores.get(documentId)?.get(position)?.score ?? 0,
  };
}

export const NO_KEYWORD_HITS: KeywordResult = { best: [], scoreOf: () => 0 };
