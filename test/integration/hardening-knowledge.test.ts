import { beforeAll, describe, expect, it } from 'vitest';
import { forgetKeywordIndex } from '#areas/knowledge/keyword-index.ts';
import { deletePrefix, getObject } from '#areas/knowledge/objects.ts';
import { basePrefix, committedKeywordObject, kbKey, type BaseRecord } from '#areas/knowledge/records.ts';
import { get } from '#shared/data/read.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { addText, newBase, retrieveAs, settled, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * The knowledge area under the classes of hardening.md: parallel uploads to one base (the keyword
 * index is rewritten by every document), and a base whose index object was lost.
 */
useKnowledgeStandIns();

let tenantId: string;
let owner: string;
beforeAll(async () => {
  tenantId = await newTenant({ maxKnowledgeBases: 10 });
  owner = await tokenFor({ tenantId });
});

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
/** One document per word, each holding a term no other holds; uploaded all at once or one after another. */
async function upload(kbId: string, how: 'parallel' | 'in turn') {
  const one = (w: string) => addText(owner, kbId, w, `The rare term zq${w} appears here only.`);
  const rs = [];
  if (how === 'parallel') rs.push(...(await Promise.all(WORDS.map(one))));
  else for (const w of WORDS) rs.push(await one(w));
  for (const r of rs) expect(r.status, r.text).toBe(202);
  return rs.map((r) => r.json.result.id as string);
}

async function expectEachFound(kbId: string, ids: string[], mode: 'keyword' | 'hybrid') {
  for (const [i, w] of WORDS.entries()) {
    const hits = await retrieveAs(owner, kbId, { query: `zq${w}`, mode });
    expect(hits.map((h) => h.documentId)[0], `${w} (${mode})`).toBe(ids[i]);
  }
}

describe('parallel uploads to one base', () => {
  it('indexes every document and finds each by keyword', async () => {
    const kbId = (await newBase(owner)).id;
    const ids = await upload(kbId, 'parallel');
    for (const id of ids) expect((await settled(owner, kbId, id)).status).toBe('Indexed');
    await expectEachFound(kbId, ids, 'keyword');
    // A later upload still works, and the base names an object that exists.
    const later = await addText(owner, kbId, 'later', 'The rare term zqfoxtrot arrived later.');
    expect(later.status, later.text).toBe(202);
    expect((await settled(owner, kbId, later.json.result.id)).status).toBe('Indexed');
    const base = await get<BaseRecord>(kbKey(tenantId, kbId), { consistent: true });
    expect(Number(base!.keywordGeneration)).toBe(WORDS.length + 1);
    expect(await getObject(committedKeywordObject(base!)!)).not.toBeNull();
  });
});

describe('a base whose keyword index object is lost', () => {
  // Before, a reader looked for the lost generation forever: the test's timeout is what catches a hang.
  it('answers retrieval, rebuilt from its chunks, and keeps the repair', async () => {
    const kbId = (await newBase(owner)).id;
    const ids = await upload(kbId, 'in turn');
    for (const id of ids) await settled(owner, kbId, id);
    // The objects lost, and a fresh function (no cached copy): as after a restart.
    await deletePrefix(`${basePrefix(tenantId, kbId)}keyword/`);
    forgetKeywordIndex(kbId);
    await expectEachFound(kbId, ids, 'keyword');
    await expectEachFound(kbId, ids, 'hybrid');
    // Repaired for good: the base names a stored object holding every document's entries.
    const base = await get<BaseRecord>(kbKey(tenantId, kbId), { consistent: true });
    const stored = await getObject(committedKeywordObject(base!)!);
    expect(stored).not.toBeNull();
    for (const w of WORDS) expect(new TextDecoder().decode(stored!)).toContain(`zq${w}`);
    // And the next upload to it ends Indexed.
    const later = await addText(owner, kbId, 'later', 'The rare term zqgolf arrived later.');
    expect((await settled(owner, kbId, later.json.result.id)).status).toBe('Indexed');
    expect((await retrieveAs(owner, kbId, { query: 'zqgolf', mode: 'keyword' }))[0]?.documentId).toBe(
      later.json.result.id,
    );
  });
});
