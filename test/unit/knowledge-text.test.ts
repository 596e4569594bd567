import { describe, expect, it } from 'vitest';
import { countTokens } from '#areas/llm-gateway/tokens.ts';
import { chunkText, sentencesOf } from '#areas/knowledge/chunking.ts';
import { detectKnowledgeType } from '#areas/knowledge/file-types.ts';
import { fuse, type Candidate } from '#areas/knowledge/fusion.ts';
import { chunkIdOf } from '#areas/knowledge/records.ts';

const sentence = (i: number) => `Sentence number ${i} talks about topic ${i % 7} with a few more words in it.`;

describe('chunking', () => {
  it('splits sentences and paragraphs, keeping abbreviations-free sentences whole', () => {
    expect(sentencesOf('One. Two!\n\nThree? Four')).toEqual([
      { text: 'One.', paragraph: true },
      { text: 'Two!', paragraph: false },
      { text: 'Three?', paragraph: true },
      { text: 'Four', paragraph: false },
    ]);
  });

  it('keeps every chunk within chunkSize tokens and breaks only between sentences', async () => {
    const text = Array.from({ length: 200 }, (_, i) => sentence(i) + (i % 10 === 9 ? '\n\n' : ' ')).join('');
    const chunks = await chunkText(text, 100, 20);
    expect(chunks.length).toBeGreaterThan(20);
    for (const c of chunks) {
      expect(c.tokenCount).toBeLessThanOrEqual(100);
      expect(c.tokenCount).toBe(await countTokens(c.text));
      expect(c.text).toMatch(/^Sentence number \d+/);
      expect(c.text).toMatch(/in it\.$/);
    }
    // Every sentence lands in some chunk, in order.
    const seen = chunks.map((c) => c.text).join(' ');
    for (let i = 0; i < 200; i++) expect(seen).toContain(sentence(i));
  });

  it('repeats the last whole sentences that fit in the overlap at the start of the next chunk', async () => {
    const text = Array.from({ length: 40 }, (_, i) => sentence(i)).join(' ');
    const chunks = await chunkText(text, 100, 40);
    for (let i = 1; i < chunks.length; i++) {
      const last = chunks[i - 1]!.text.match(/Sentence number \d+[^.]*\.$/)![0];
      expect(chunks[i]!.text.startsWith(last) || chunks[i]!.text.includes(last)).toBe(true);
    }
    const none = await chunkText(text, 100, 0);
    expect(none.map((c) => c.text).join(' ')).toBe(text);
  });

  it('cuts a sentence longer than a chunk at token boundaries', async () => {
    const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const chunks = await chunkText(long, 100, 10);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) expect(c.tokenCount).toBeLessThanOrEqual(101);
  });

  it("reads a model's special-token markers as plain text (a document about chat formats, a visitor quoting one)", async () => {
    const text = 'ChatML wraps turns in <|im_start|> and <|im_end|>; a sample ends at <|endoftext|>.';
    const chunks = await chunkText(text, 100, 10);
    expect(chunks.map((c) => c.text)).toEqual([text]);
    expect(chunks[0]!.tokenCount).toBeGreaterThan(15);
    const long = `${'<|endoftext|> '.repeat(60)}end.`;
    const cut = await chunkText(long, 50, 0);
    expect(cut.length).toBeGreaterThan(3);
    for (const c of cut) expect(c.tokenCount).toBeLessThanOrEqual(51);
  });

  it('gives nothing for text without words', async () => {
    expect(await chunkText(' \n\n \t', 100, 10)).toEqual([]);
  });
});

describe('fusion', () => {
  const candidates: Candidate[] = [
    { chunkId: 'b', kbId: 'k', documentId: 'd', position: 1, bm25: 4, cosine: 0.5 },
    { chunkId: 'a', kbId: 'k', documentId: 'd', position: 0, bm25: 8, cosine: 0.1 },
    { chunkId: 'c', kbId: 'k', documentId: 'd', position: 2, bm25: 0, cosine: -0.3 },
  ];
  const max = new Map([['k', 8]]);

  it('hybrid is 0.8 x (BM25 / best BM25) + 0.2 x max(0, cosine), exactly', () => {
    const out = fuse(candidates, 'hybrid', max);
    expect(out.map((c) => [c.chunkId, c.score, c.keywordScore, c.vectorScore])).toEqual([
      ['a', 0.82, 1, 0.1],
      ['b', 0.5, 0.5, 0.5],
      ['c', 0, 0, 0],
    ]);
  });

  it('keyword and semantic modes use one component and show the other as null', () => {
    expect(fuse(candidates, 'keyword', max).map((c) => [c.chunkId, c.score, c.vectorScore])).toEqual([
      ['a', 1, null],
      ['b', 0.5, null],
      ['c', 0, null],
    ]);
    expect(fuse(candidates, 'semantic', max).map((c) => [c.chunkId, c.score, c.keywordScore])).toEqual([
      ['b', 0.5, null],
      ['a', 0.1, null],
      ['c', 0, null],
    ]);
  });

  it('is deterministic: the same inputs in any order give the same scores and order (ties by chunk id)', () => {
    const tied: Candidate[] = [
      { chunkId: 'z', kbId: 'k', documentId: 'd', position: 0, bm25: 2, cosine: 0.2 },
      { chunkId: 'm', kbId: 'k', documentId: 'd', position: 1, bm25: 2, cosine: 0.2 },
    ];
    const one = fuse([...candidates, ...tied], 'hybrid', max);
    const two = fuse([...tied, ...candidates].reverse(), 'hybrid', max);
    expect(two).toEqual(one);
    expect(one.filter((c) => c.score === one.find((x) => x.chunkId === 'm')!.score).map((c) => c.chunkId)).toEqual([
      'm',
      'z',
    ]);
  });
});

describe('knowledge file types', () => {
  const PDF = Buffer.from('%PDF-1.7\n...');
  const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2]);
  const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
  it('decides by the bytes, with the declared type and extension as hints', () => {
    expect(detectKnowledgeType(PDF, 'application/pdf', 'a.pdf')).toBe('application/pdf');
    expect(detectKnowledgeType(PDF, 'application/octet-stream', 'a')).toBe('application/pdf');
    expect(detectKnowledgeType(ZIP, DOCX, 'a.docx')).toBe(DOCX);
    expect(detectKnowledgeType(Buffer.from('# Title'), 'application/octet-stream', 'a.md')).toBe('text/markdown');
    expect(detectKnowledgeType(Buffer.from('<p>x</p>'), 'text/html', 'a.html')).toBe('text/html');
    expect(detectKnowledgeType(Buffer.from('plain'), '', 'notes')).toBe('text/plain');
    expect(detectKnowledgeType(Buffer.alloc(0), 'text/markdown', 'e.md')).toBe('text/markdown');
  });

  it('refuses a file whose bytes, name and declared type disagree', () => {
    expect(() => detectKnowledgeType(Buffer.from('text'), 'application/pdf', 'a.pdf')).toThrow(/holds text/);
    expect(() => detectKnowledgeType(PDF, 'text/plain', 'a.txt')).toThrow(/bytes are application\/pdf/);
    expect(() => detectKnowledgeType(ZIP, 'application/pdf', 'a.pdf')).toThrow();
    expect(() => detectKnowledgeType(Buffer.from('x'), 'text/plain', 'a.docx')).toThrow(/named/);
    expect(() => detectKnowledgeType(Buffer.from([0, 1, 2]), 'text/plain', 'a.txt')).toThrow(/not text/);
    expect(() => detectKnowledgeType(Buffer.from('x'), 'image/png', 'a.png')).toThrow(/not accepted/);
  });
});

it('derives a stable, UUID-shaped chunk id from the document and position', () => {
  const id = chunkIdOf('doc-1', 3);
  expect(id).toBe(chunkIdOf('doc-1', 3));
  expect(id).not.toBe(chunkIdOf('doc-1', 4));
  expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});
