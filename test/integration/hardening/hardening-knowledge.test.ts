import { beforeAll, describe, expect, it, vi } from 'vitest';
import { postingsOf, removePostings, writePostings } from '#areas/knowledge/keyword/postings.ts';
import { indexInSegments } from '#areas/knowledge/keyword/segments.ts';
import { removeKeywordEntries } from '#areas/knowledge/purge.ts';
import { CURRENT_ANALYZER } from '#areas/knowledge/keyword/terms.ts';
import { kbKey, termStatKey, type BaseRecord } from '#areas/knowledge/records.ts';
import { get } from '#shared/data/read.ts';
import { logger } from '#shared/runtime/logger.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { addFile, addText, KB, newBase, retrieveAs, settled, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { invoke } from '#test/support/invoke.ts';
import { docxBomb, docxOfEmptyParagraphs, manyPagePdf } from '#test/support/knowledge-files.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * The knowledge area under the classes of hardening.md: parallel uploads to one base (the keyword
 * postings and statistics are written by every document at once), and files built to
 * exhaust the indexer (decompression and page bombs).
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

async function expectEachFound(kbId: string, ids: string[], mode: 'keyword' | 'hybrid', from = 0) {
  for (const [i, w] of WORDS.entries()) {
    if (i < from) continue;
    const hits = await retrieveAs(owner, kbId, { query: `zq${w}`, mode });
    expect(hits.map((h) => h.documentId)[0], `${w} (${mode})`).toBe(ids[i]);
  }
}

describe('parallel uploads to one base', () => {
  it('indexes every document and finds each by keyword', async () => {
    const kbId = (await newBase(owner)).id;
    // A writer that deleted the object another committed would be healed by the repair: none may be needed.
    const warn = vi.spyOn(logger, 'warn');
    try {
      const ids = await upload(kbId, 'parallel');
      for (const id of ids) expect((await settled(owner, kbId, id)).status).toBe('Indexed');
      await expectEachFound(kbId, ids, 'keyword');
      await expectEachFound(kbId, ids, 'hybrid');
      expect(warn.mock.calls).toEqual([]);
    } finally {
      warn.mockRestore();
    }
    const later = await addText(owner, kbId, 'later', 'The rare term zqfoxtrot arrived later.');
    expect(later).toAnswer(202);
    expect((await settled(owner, kbId, later.json.result.id)).status).toBe('Indexed');
  });
});

describe('keyword statistics of a base indexed in parallel', () => {
  it('counts every chunk once, and a delete takes its document out of them and out of retrieval', async () => {
    const kbId = (await newBase(owner)).id;
    const ids = await upload(kbId, 'parallel');
    for (const id of ids) expect((await settled(owner, kbId, id)).status).toBe('Indexed');
    // "rare" and "term" are in every document's one chunk: five parallel writers, each counted once.
    const df = async (term: string) =>
      Number((await get<{ df?: number }>(termStatKey(tenantId, kbId, term), { consistent: true }))?.df ?? 0);
    expect(await df('rare')).toBe(WORDS.length);
    expect(await df('zqalpha')).toBe(1);
    const base = await get<BaseRecord>(kbKey(tenantId, kbId), { consistent: true });
    expect(Number(base!.chunkCount)).toBe(WORDS.length);
    // Each chunk of "The rare term zqX appears here only." under its title X is 7 terms once "the" is dropped.
    expect(Number(base!.keywordTerms)).toBe(WORDS.length * 7);

    const gone = await invoke('DELETE', `${KB}/${kbId}/documents/${ids[0]}`, { token: owner });
    expect(gone).toAnswer(204);
    expect(await retrieveAs(owner, kbId, { query: 'zqalpha', mode: 'keyword' })).toEqual([]);
    expect(await df('rare')).toBe(WORDS.length - 1);
    expect(await df('zqalpha')).toBe(0);
    const after = await get<BaseRecord>(kbKey(tenantId, kbId), { consistent: true });
    expect(Number(after!.keywordTerms)).toBe((WORDS.length - 1) * 7);
    // The others are still found, each first for its own word.
    await expectEachFound(kbId, ids, 'keyword', 1);
  });
});

describe('a document whose postings are written or removed twice', () => {
  it('moves the document frequencies once (a re-delivered message changes nothing)', async () => {
    const kbId = (await newBase(owner)).id;
    const res = await addText(owner, kbId, 'twice', 'The rare term zqtwice appears here. Another zqtwice line.');
    expect((await settled(owner, kbId, res.json.result.id)).status).toBe('Indexed');
    const df = async (term: string) =>
      Number((await get<{ df?: number }>(termStatKey(tenantId, kbId, term), { consistent: true }))?.df ?? 0);
    expect(await df('zqtwice')).toBe(1);
    const doc = postingsOf(
      res.json.result.id,
      [{ position: 0, text: 'The rare term zqtwice appears here. Another zqtwice line.', title: 'twice' }],
      CURRENT_ANALYZER,
    );
    // Its segment written again (a redelivery), then its entries removed twice (two purges).
    await indexInSegments(
      tenantId,
      kbId,
      [{ documentId: res.json.result.id, chunks: 1, terms: doc }],
      async () => null,
    );
    expect(await df('zqtwice')).toBe(1);
    const ref = { tenantId, kbId, documentId: res.json.result.id };
    await removeKeywordEntries(ref, doc);
    await removeKeywordEntries(ref, doc);
    expect(await df('zqtwice')).toBe(0);
    expect(await retrieveAs(owner, kbId, { query: 'zqtwice', mode: 'keyword' })).toEqual([]);
  });
});

describe('a document too large for a segment, its own postings written or removed twice', () => {
  it('moves the document frequencies once', async () => {
    const kbId = (await newBase(owner)).id;
    const df = async (term: string) =>
      Number((await get<{ df?: number }>(termStatKey(tenantId, kbId, term), { consistent: true }))?.df ?? 0);
    const doc = postingsOf(
      'alone',
      [
        { position: 0, text: 'zqsolo once' },
        { position: 1, text: 'zqsolo twice' },
      ],
      CURRENT_ANALYZER,
    );
    await writePostings(tenantId, kbId, doc);
    await writePostings(tenantId, kbId, doc);
    expect(await df('zqsolo')).toBe(2);
    await removePostings(tenantId, kbId, doc);
    await removePostings(tenantId, kbId, doc);
    expect(await df('zqsolo')).toBe(0);
  });
});

describe('decompression and page bombs', () => {
  const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
  const BOMBS = [
    {
      name: 'a DOCX of three million empty paragraphs',
      file: async () => ['empty.docx', DOCX, docxOfEmptyParagraphs(3_000_000)] as const,
      reason: /^The Word document \(DOCX\) was not read: it holds more than 300,000 XML elements/,
    },
    {
      name: 'a DOCX that unpacks to 300 MB',
      file: async () => ['bomb.docx', DOCX, await docxBomb(300)] as const,
      reason: /^The Word document \(DOCX\) was not read: it unpacks to more than 64 MB/,
    },
    {
      name: 'a PDF of 20,000 pages',
      file: async () => ['pages.pdf', 'application/pdf', manyPagePdf(20_000)] as const,
      reason: /^The PDF has 20,000 pages; at most 1,000 are read/,
    },
  ];

  let other: string;
  let otherKb: string;
  beforeAll(async () => {
    other = await tokenFor({ tenantId: await newTenant({ maxKnowledgeBases: 5 }) });
    otherKb = (await newBase(other)).id;
  });

  /** The peak growth of this process's memory while `work` runs, sampled every 20 ms. */
  async function peakGrowth<T>(work: () => Promise<T>) {
    const start = process.memoryUsage();
    const peak = { rss: start.rss, heapUsed: start.heapUsed };
    const timer = setInterval(() => {
      const now = process.memoryUsage();
      peak.rss = Math.max(peak.rss, now.rss);
      peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed);
    }, 20);
    try {
      const out = await work();
      return { out, rssMb: (peak.rss - start.rss) / 2 ** 20, heapMb: (peak.heapUsed - start.heapUsed) / 2 ** 20 };
    } finally {
      clearInterval(timer);
    }
  }

  for (const bomb of BOMBS)
    it(`${bomb.name} ends Failed with its reason, while another tenant's document beside it ends Indexed`, async () => {
      const kbId = (await newBase(owner)).id;
      const [fileName, type, bytes] = await bomb.file();
      expect(bytes.length).toBeLessThan(4_400_000);
      const { out, rssMb, heapMb } = await peakGrowth(() =>
        Promise.all([
          addFile(owner, kbId, fileName, type, bytes),
          addText(other, otherKb, 'beside', `Ordinary text uploaded beside ${fileName} by another tenant.`),
        ]),
      );
      const [bombUpload, beside] = out;
      expect(bombUpload).toAnswer(202);
      expect(beside).toAnswer(202);
      expect(await settled(owner, kbId, bombUpload.json.result.id)).toMatchObject({
        status: 'Failed',
        error: expect.stringMatching(bomb.reason),
        chunkCount: 0,
      });
      expect((await settled(other, otherKb, beside.json.result.id)).status).toBe('Indexed');
      expect(heapMb, 'main heap growth (MB)').toBeLessThan(256);
      expect(rssMb, 'process memory growth (MB)').toBeLessThan(768);
    });
});
