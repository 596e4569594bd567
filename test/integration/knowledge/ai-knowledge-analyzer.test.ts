import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { kbKey, termStatKey } from '#areas/knowledge/records.ts';
import { get } from '#shared/data/read.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { addText, KB, newBase, retrieveAs, settled, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * Keyword terms are stemmed in bases created now, and a base created before stemming keeps
 * answering as it was indexed (docs/decisions/knowledge.md, "Analyzer versions"): its query is cut
 * the way its postings were written, and a delete removes exactly the terms that were written.
 */
useKnowledgeStandIns();

let tenantId: string;
let owner: string;
beforeAll(async () => {
  tenantId = await newTenant({ maxKnowledgeBases: 5 });
  owner = await tokenFor({ tenantId });
});

const TEXT = 'Studies of zqmitochondria show the cells recover.';

async function indexed(kbId: string, title: string) {
  const res = await addText(owner, kbId, title, TEXT);
  expect(res).toAnswer(202);
  expect((await settled(owner, kbId, res.json.result.id)).status).toBe('Indexed');
  return res.json.result.id as string;
}

const df = async (kbId: string, term: string) =>
  Number((await get<{ df?: number }>(termStatKey(tenantId, kbId, term), { consistent: true }))?.df ?? 0);

const found = async (kbId: string, query: string) =>
  (await retrieveAs(owner, kbId, { query, mode: 'keyword' })).map((h) => h.documentId);

describe('keyword analyzers', () => {
  it('finds another form of a word in a base created now, and its title’s words', async () => {
    const kbId = (await newBase(owner)).id;
    const id = await indexed(kbId, 'Organelle repair');
    expect(await found(kbId, 'a study of one cell')).toEqual([id]);
    expect(await found(kbId, 'organelles')).toEqual([id]);
  });

  it('answers a base created before stemming as it was indexed, and a delete removes its terms', async () => {
    const kbId = (await newBase(owner)).id;
    // A base item as it was stored before analyzers were versioned.
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: kbKey(tenantId, kbId),
        UpdateExpression: 'REMOVE keywordAnalyzer',
      }),
    );
    const id = await indexed(kbId, 'Organelle repair');
    expect(await found(kbId, 'studies of cells')).toEqual([id]);
    expect(await found(kbId, 'a study of one cell')).toEqual([]);
    expect(await df(kbId, 'studies')).toBe(1);

    expect(await invoke('DELETE', `${KB}/${kbId}/documents/${id}`, { token: owner })).toAnswer(204);
    for (const term of ['studies', 'cells', 'zqmitochondria', 'organelle']) expect(await df(kbId, term), term).toBe(0);
  });
});
