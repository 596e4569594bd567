import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMON_TERM_POSTINGS, POSTINGS_READ, searchKeyword } from '#areas/knowledge/keyword/search.ts';
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
  it('reads at most COMMON_TERM_POSTINGS postings of a term in over half the chunks, POSTINGS_READ otherwise', async () => {
    const statKeys = new Map(Object.keys(DF).map((t) => [keyId(termStatKey('t1', 'kb1', t)), t]));
    ddb.on(BatchGetCommand).callsFake((input) => {
      const asked = input.RequestItems[config.tableName].Keys as Record<string, string>[];
      return {
        Responses: {
          [config.tableName]: asked.map((k) => ({ ...k, df: DF[statKeys.get(keyId(k as never))!] })),
        },
      };
    });
    ddb.on(QueryCommand).resolves({ Items: [] });
    await searchKeyword(base, 'ledger harbour glacier zq17a');
    const limits = Object.fromEntries(
      ddb.commandCalls(QueryCommand).map((c) => {
        const pk = String(c.args[0].input.ExpressionAttributeValues?.[':pk']);
        return [pk.slice(pk.lastIndexOf('#') + 1), c.args[0].input.Limit];
      }),
    );
    expect(limits).toEqual({
      ledger: COMMON_TERM_POSTINGS,
      harbour: COMMON_TERM_POSTINGS,
      glacier: POSTINGS_READ,
      zq17a: POSTINGS_READ,
    });
  });
});
