import { beforeAll, describe, expect, it } from 'vitest';
import { CURRENT_ANALYZER, terms } from '#areas/knowledge/keyword/terms.ts';
import { kbKey, termStatKey, type BaseRecord } from '#areas/knowledge/records.ts';
import { get } from '#shared/data/read.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { addText, newBase, retrieveAs, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * The write path at volume: 60 documents into one base (KNOWLEDGE_VOLUME_DOCUMENTS for more; a
 * multiple of 10), eight uploads at a time, each indexed by
 * the real worker through the queue (the test queue delivers as the upload sends), so postings and
 * document frequencies of shared terms are written by several documents at once. Afterwards every
 * chunk must be found by its own word (keyword) and by its own text (semantic): nothing lost.
 */
useKnowledgeStandIns();

const DOCUMENTS = Number(process.env.KNOWLEDGE_VOLUME_DOCUMENTS ?? 60);
const PARAGRAPHS = 2;
const AT_ONCE = 8;
const FILLER =
  'ledger harbour glacier telescope saffron beekeeper volcano quartz penguin lighthouse bakery orchard'.split(' ');

/** A unique word per chunk: zq + document + letter. */
const wordOf = (d: number, p: number) => `zq${d}${'abcdefgh'[p]}`;
/** About 77 tokens: no sentence of the next fits beside it in a chunk of 100, so each paragraph is one chunk. */
function paragraph(d: number, p: number): string {
  const w = wordOf(d, p);
  const filler = (k: number) =>
    Array.from({ length: 14 }, (_, i) => FILLER[(d * 3 + p * 5 + k * 7 + i) % 12]).join(' ');
  return `The ${w} entry starts here with ${filler(0)}. Then ${w} continues ${filler(1)}. It ends ${filler(2)} ${w}.`;
}

let owner: string;
let tenantId: string;
beforeAll(async () => {
  tenantId = await newTenant({ maxKnowledgeBases: 5 });
  owner = await tokenFor({ tenantId });
});

describe(`${DOCUMENTS} documents indexed eight at a time into one base`, () => {
  it('keeps every chunk, each found by keyword and by vector', { timeout: 600_000 }, async () => {
    const kbId = (await newBase(owner, { chunkSize: 100, chunkOverlap: 0 })).id;
    const ids: string[] = new Array(DOCUMENTS);
    let next = 0;
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (next < DOCUMENTS) {
          const d = next++;
          const text = Array.from({ length: PARAGRAPHS }, (_, p) => paragraph(d, p)).join('\n\n');
          const res = await addText(owner, kbId, `Doc ${d}`, text);
          expect(res).toAnswer(202);
          ids[d] = res.json.result.id;
        }
      }),
    );
    const base = await get<BaseRecord>(kbKey(tenantId, kbId), { consistent: true });
    expect(Number(base!.chunkCount)).toBe(DOCUMENTS * PARAGRAPHS);
    // A word in every chunk, written by every document through concurrent transactions, counted once each.
    const entry = terms('entry', CURRENT_ANALYZER)[0]!;
    const df = await get<{ df: number }>(termStatKey(tenantId, kbId, entry), { consistent: true });
    expect(Number(df?.df)).toBe(DOCUMENTS * PARAGRAPHS);

    // Keyword: twenty chunks' words in one query return exactly those twenty chunks.
    const found = new Map<string, string>();
    for (let d = 0; d < DOCUMENTS; d += 10) {
      const words = Array.from({ length: 10 }, (_, i) => d + i).flatMap((x) =>
        Array.from({ length: PARAGRAPHS }, (_, p) => wordOf(x, p)),
      );
      const hits = await retrieveAs(owner, kbId, { query: words.join(' '), mode: 'keyword', topK: 20 });
      expect(hits).toHaveLength(20);
      for (const w of words) {
        const hit = hits.find((h) => h.text.includes(w));
        expect(hit, w).toBeDefined();
        expect(hit!.documentId).toBe(ids[Number(w.slice(2, -1))]);
        expect(hit!.keywordScore).toBeGreaterThan(0);
        found.set(w, hit!.chunkId);
      }
    }
    expect(found.size).toBe(DOCUMENTS * PARAGRAPHS);

    // Vector: each chunk's own text finds that chunk first.
    for (let d = 0; d < DOCUMENTS; d++)
      for (let p = 0; p < PARAGRAPHS; p++) {
        const [top] = await retrieveAs(owner, kbId, { query: paragraph(d, p), mode: 'semantic', topK: 1 });
        expect(top?.chunkId, wordOf(d, p)).toBe(found.get(wordOf(d, p)));
      }
  });
});
