import { keyId } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { getMany } from '#shared/data/read.ts';
import { config } from '#shared/platform/config.ts';
import { POSTING_PREFIX, termList, termStatKey, type BaseRecord } from '../records.ts';
import { avgLength, idf, termScore, type BaseStats } from './bm25.ts';
import { eachEntry } from './postings.ts';
import { queryTerms } from './terms.ts';

/**
 * BM25 over a base's postings in DynamoDB (docs/decisions/knowledge.md, "Keyword index"): one
 * BatchGetItem for the query terms' document frequencies, then one Query per term (in parallel)
 * reading its postings best impact first, at most POSTINGS_READ items a term (COMMON_TERM_POSTINGS
 * for a term in most of the base, whose idf is low). A term held by more documents than that
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

/** `documentId#position`: how keyword and vector hits of one chunk meet before its id is known. */
export const chunkRef = (documentId: string, position: number) => `${documentId}#${position}`;

export const statsOf = (base: Pick<BaseRecord, 'chunkCount' | 'keywordTerms'>): BaseStats => ({
  chunks: Math.max(0, Number(base.chunkCount ?? 0)),
  terms: Math.max(0, Number(base.keywordTerms ?? 0)),
});

/** Every chunk read that matches a query term, with its BM25 score, best first. */
export async function searchKeyword(
  base: Pick<BaseRecord, 'tenantId' | 'id' | 'chunkCount' | 'keywordTerms'>,
  query: string,
): Promise<KeywordHit[]> {
  const list = queryTerms(query);
  if (!list.length) return [];
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
      const postings = await queryItems<{ documentId: string; c: string }>(
        {
          TableName: config.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
          ExpressionAttributeValues: { ':pk': termList(base.tenantId, base.id, term), ':p': POSTING_PREFIX },
          ProjectionExpression: 'documentId, c',
        },
        postingsToRead(stats, df),
      );
      for (const { documentId, c } of postings) {
        const ofDocument = scores.get(documentId) ?? new Map<number, KeywordHit>();
        scores.set(documentId, ofDocument);
        eachEntry(c, (position, tf, length) => {
          const hit = ofDocument.get(position);
          const add = termScore(weight, tf, length, avgdl);
          if (hit) hit.score += add;
          else ofDocument.set(position, { documentId, position, score: add });
        });
      }
    }),
  );
  return [...scores.values()]
    .flatMap((chunks) => [...chunks.values()])
    .sort(
      (a, b) =>
        b.score - a.score ||
        (a.documentId < b.documentId ? -1 : a.documentId > b.documentId ? 1 : a.position - b.position),
    );
}
