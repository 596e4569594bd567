import { describe, expect, it } from 'vitest';
import { extractText, ParseError } from '#areas/knowledge/parse.ts';
import { THREAD_LIMITS } from '#areas/knowledge/parse-thread.ts';
import { checkZip, ZipRefused } from '#areas/knowledge/zip-check.ts';
import { docx, docxBomb, docxOfEmptyParagraphs, pdf, zipOfManyEntries } from '#test/support/knowledge-files.ts';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/**
 * The bounds of the document parse (areas/knowledge/zip-check.ts, parse-thread.ts): a ZIP is
 * measured before a parser opens it, and PDF and DOCX are read in a thread with a heap and a time limit.
 */
describe('a DOCX measured before it is unpacked', () => {
  const refusal = (bytes: Uint8Array) =>
    checkZip(bytes).then(
      () => null,
      (err) => (err instanceof ZipRefused ? err.message : Promise.reject(err)),
    );

  it('passes an ordinary Word document', async () => {
    expect(await refusal(docx(['One paragraph.', 'Another one.']))).toBeNull();
  });

  it('refuses by the sizes its directory declares, by its entry count and by its element count', async () => {
    expect(await refusal(await docxBomb(100))).toEqual(expect.stringMatching(/^it unpacks to more than 64 MB/));
    expect(await refusal(zipOfManyEntries(1_001))).toEqual(expect.stringMatching(/^it holds 1,001 files inside/));
    expect(await refusal(docxOfEmptyParagraphs(300_001))).toEqual(
      expect.stringMatching(/^it holds more than 300,000 XML elements/),
    );
  });

  it('refuses by its declared sizes before it unpacks anything (the entries themselves unreadable)', async () => {
    const bomb = await docxBomb(100);
    // Everything but the central directory at the end overwritten: only the declared sizes are left to read.
    const directoryOnly = bomb.slice().fill(0, 64, bomb.length - 1024);
    expect(await refusal(directoryOnly)).toEqual(expect.stringMatching(/^it unpacks to more than 64 MB/));
  });

  it('refuses a file that declares small sizes and still expands: the unpacking itself is capped', async () => {
    expect(await refusal(await docxBomb(100, 1))).toEqual(expect.stringMatching(/^it unpacks to more than 64 MB/));
  });
});

describe('PDF and DOCX read in a bounded thread', () => {
  const reason = (type: Parameters<typeof extractText>[0], bytes: Uint8Array, limits = THREAD_LIMITS) =>
    extractText(type, bytes, limits).then(
      (text) => `text: ${text.trim()}`,
      (err) => (err instanceof ParseError ? err.message : Promise.reject(err)),
    );

  it('reads both kinds there', async () => {
    expect(await reason('application/pdf', await pdf(['Lanterns glow at dusk.']))).toBe('text: Lanterns glow at dusk.');
    expect(await reason(DOCX, docx(['Kettles whistle at noon.']))).toBe('text: Kettles whistle at noon.');
  });

  it('ends a read that outlasts its time limit, with the reason', async () => {
    expect(await reason('application/pdf', await pdf(['Slow.']), { ...THREAD_LIMITS, timeoutMs: 1 })).toEqual(
      expect.stringMatching(/^The PDF was not read: reading it took longer than \d+ s/),
    );
  });

  it('ends a read that needs more than its heap, and this process goes on', async () => {
    // Within the element count, but more than a 16 MB heap holds.
    const heavy = docxOfEmptyParagraphs(250_000);
    expect(await reason(DOCX, heavy, { ...THREAD_LIMITS, heapMb: 16 })).toEqual(
      expect.stringMatching(/^The Word document \(DOCX\) was not read: reading it needs more than 16 MB of memory/),
    );
    expect(await reason(DOCX, docx(['Still here.']))).toBe('text: Still here.');
  });
});
