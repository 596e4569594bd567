import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMON_TERM_POSTINGS, POSTINGS_READ, searchKeyword } from '#areas/knowledge/keyword/search.ts';
import { SEGMENT_DOCUMENTS } from '#areas/knowledge/keyword/segments.ts';
import { termStatKey } from '#areas/knowledge/records.ts';
import { keyId } from '#shared/data/keys.ts';
import { config } from '#shared/platform/config.ts';

/**
 * What a keyword search reads per query term: a word in most of the base (its idf near the floor)
 * reads its strongest few documents' postings, a rarer word up to the usual bound; never the whole
 * term, however large the base.
 */
const ddb = mockClient(DynamoDBDocumentClient);
afterAll(() => ddb.restore());

const base = { tenantId: 't1', id: 'kb1', chunkCount: 100_000, keywordTerms: 2_000_000 };
const DF: Record<string, number> = { ledger: 100_000, harbour: 60_000, glacier: 40_000, zq17a: 1 };

describe('keyword reads per term', () => {
  it('reads COMMON_TERM_POSTINGS documents of a term in over half the chunks, POSTINGS_READ otherwise, in whole items', async () => {
    const statKeys = new Map(Object.keys(DF).map((t) => [keyId(termStatKey('t1', 'kb1', t)), t]));
    ddb.on(BatchGetCommand).callsFake((input) => {
      const asked = input.RequestItems[config.tableName].Keys as Record<string, string>[];
      return {
        Responses: {
          [config.tableName]: asked.map((k) => ({ ...k, df: DF[statKeys.get(keyId(k as never))!] })),
        },
      };
    });
    // Every term has more postings than any bound: each page is full and has a next one.
    const served = (shape: 'document' | 'segment') => (input: { Limit?: number }) => ({
      Items: Array.from({ length: input.Limit ?? 1 }, (_, i) =>
        shape === 'document'
          ? { documentId: `d${i}`, c: '0:1:10' }
          : { e: Object.fromEntries(Array.from({ length: SEGMENT_DOCUMENTS }, (_, d) => [`d${i}-${d}`, '0:1:10'])) },
      ),
      LastEvaluatedKey: { pk: 'more', sk: 'more' },
    });
    const documentsRead = async (shape: 'document' | 'segment') => {
      ddb.on(QueryCommand).callsFake(served(shape));
      const before = ddb.commandCalls(QueryCommand).length;
      await searchKeyword(base, 'ledger harbour glacier zq17a', 100);
      const read: Record<string, number> = {};
      for (const c of ddb.commandCalls(QueryCommand).slice(before)) {
        const pk = String(c.args[0].input.ExpressionAttributeValues?.[':pk']);
        const term = pk.slice(pk.lastIndexOf('#') + 1);
        read[term] = (read[term] ?? 0) + (c.args[0].input.Limit ?? 0) * (shape === 'document' ? 1 : SEGMENT_DOCUMENTS);
      }
      return read;
    };
    expect(await documentsRead('document')).toEqual({
      ledger: COMMON_TERM_POSTINGS,
      harbour: COMMON_TERM_POSTINGS,
      glacier: POSTINGS_READ,
      zq17a: POSTINGS_READ,
    });
    // Full segments' items: a term's first page is two of them, though either bound needs one; a
    // term in one chunk is read whole, in one item.
    expect(await documentsRead('segment')).toEqual({
      ledger: 2 * SEGMENT_DOCUMENTS,
      harbour: 2 * SEGMENT_DOCUMENTS,
      glacier: 2 * SEGMENT_DOCUMENTS,
      zq17a: SEGMENT_DOCUMENTS,
    });
  });
});

it('keeps the best hits a full sort would keep, ties by document then position, and scores every chunk read', async () => {
  ddb.reset();
  ddb.on(BatchGetCommand).callsFake((input) => ({
    Responses: {
      [config.tableName]: (input.RequestItems[config.tableName].Keys as object[]).map((k) => ({ ...k, df: 40 })),
    },
  }));
  // Two terms over six documents: equal tf and length make many ties, overlaps make sums.
  const docs = ['d5', 'd1', 'd4', 'd0', 'd3', 'd2'];
  const entries = (d: number, shift: number) =>
    Array.from({ length: 8 }, (_, p) => `${p}:${1 + ((p + d + shift) % 3)}:${10 + (p % 2)}`).join(',');
  ddb.on(QueryCommand).callsFake((input) => {
    const second = String(input.ExpressionAttributeValues[':pk']).endsWith('#harbour');
    return {
      Items: docs.slice(second ? 2 : 0).map((documentId, d) => ({ documentId, c: entries(d, second ? 1 : 0) })),
    };
  });
  const small = { tenantId: 't1', id: 'kb1', chunkCount: 100, keywordTerms: 1_000 };
  const { best, scoreOf } = await searchKeyword(small, 'ledger harbour', 10);
  const everyChunk = docs.flatMap((documentId) =>
    Array.from({ length: 8 }, (_, position) => ({ documentId, position, score: scoreOf(documentId, position) })),
  );
  const sorted = everyChunk.sort(
    (a, b) => b.score - a.score || a.documentId.localeCompare(b.documentId) || a.position - b.position,
  );
  expect(best).toEqual(sorted.slice(0, 10));
  expect(new Set(sorted.slice(0, 30).map((h) => h.score)).size).toBeLessThan(30);
  expect(scoreOf('d9', 0)).toBe(0);
});
