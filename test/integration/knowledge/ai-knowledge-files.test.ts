import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { addFile, KB, multipart, newBase, retrieveAs, settled, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { docx, pdf, zip } from '#test/support/knowledge-files.ts';

useKnowledgeStandIns();

let owner: string;
let kbId: string;

beforeAll(async () => {
  owner = await tokenFor({ tenantId: await newTenant({ maxKnowledgeBases: 5 }) });
  kbId = (await newBase(owner)).id;
});

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** Each type carries one sentence no other document holds, and filler the others share. */
const FILES: { type: string; name: string; sentence: string; build: (s: string) => Promise<Buffer> | Buffer }[] = [
  {
    type: 'text/plain',
    name: 'notes.txt',
    sentence: 'Penguins huddle together through the polar winter to share warmth.',
    build: (s) => Buffer.from(`Shared filler about documents.\n\n${s}\n\nMore shared filler.`),
  },
  {
    type: 'text/markdown',
    name: 'guide.md',
    sentence: 'Saffron threads are the dried stigmas of the crocus flower.',
    build: (s) => Buffer.from(`# Guide\n\nShared filler about documents.\n\n- ${s}\n`),
  },
  {
    type: 'text/html',
    name: 'page.html',
    sentence: 'Glaciers carve fjords as they retreat toward the mountains.',
    build: (s) =>
      Buffer.from(
        `<html><head><title>t</title><script>var x=1;</script></head><body><h1>Page</h1><p>${s}</p><p>Shared filler about documents.</p></body></html>`,
      ),
  },
  {
    type: 'application/pdf',
    name: 'report.pdf',
    sentence: 'Telescopes on the summit record faint infrared light from distant galaxies.',
    build: (s) => pdf(['Shared filler about documents.', s]),
  },
  {
    type: DOCX,
    name: 'memo.docx',
    sentence: 'Beekeepers smoke the hive gently before lifting the honey frames.',
    build: (s) => docx(['Shared filler about documents.', s]),
  },
];

describe('file uploads', () => {
  const uploaded: Record<string, string> = {};

  beforeAll(async () => {
    for (const f of FILES) {
      const res = await addFile(owner, kbId, f.name, f.type, await f.build(f.sentence));
      expect(res, `${f.name}: ${res.text}`).toAnswer(202);
      expect(res.json.result).toMatchObject({ status: 'Queued', fileName: f.name, contentType: f.type, title: f.name });
      uploaded[f.name] = res.json.result.id;
    }
  });

  for (const f of FILES)
    it(`indexes ${f.name} and retrieves its sentence first in every mode`, async () => {
      const doc = await settled(owner, kbId, uploaded[f.name]!);
      expect(doc, JSON.stringify(doc)).toMatchObject({ status: 'Indexed', error: null });
      for (const mode of ['keyword', 'semantic', 'hybrid']) {
        const hits = await retrieveAs(owner, kbId, { query: f.sentence, mode, topK: 3 });
        expect(hits[0]?.documentId, `${f.name} ${mode}`).toBe(uploaded[f.name]);
        expect(hits[0]!.text).toContain(f.sentence);
      }
    });

  it('keeps HTML markup and scripts out of the chunks', async () => {
    const chunks = await invoke('GET', `${KB}/${kbId}/documents/${uploaded['page.html']}/chunks`, { token: owner });
    const text = chunks.json.result.items.map((c: { text: string }) => c.text).join(' ');
    expect(text).toContain('Glaciers carve fjords');
    expect(text).not.toMatch(/<p>|var x/);
  });

  it('takes the title from the query or a form field', async () => {
    const part = multipart('a.txt', 'text/plain', Buffer.from('Titled text.'), { title: 'From the form' });
    const res = await invoke('POST', `${KB}/${kbId}/documents`, { token: owner, ...part });
    expect(res.json.result.title).toBe('From the form');
  });
});

describe('files that cannot be indexed', () => {
  const failed = async (name: string, type: string, data: Buffer) => {
    const res = await addFile(owner, kbId, name, type, data);
    expect(res).toAnswer(202);
    return settled(owner, kbId, res.json.result.id);
  };

  it('a corrupt PDF ends Failed with its reason, and nothing of it is retrievable', async () => {
    const good = await pdf(['Unicorns graze on moonlit meadows of clover.']);
    const broken = Buffer.concat([good.subarray(0, 40), Buffer.from('garbage '.repeat(50))]);
    const doc = await failed('broken.pdf', 'application/pdf', broken);
    expect(doc).toMatchObject({ status: 'Failed', chunkCount: 0 });
    expect(doc.error).toMatch(/PDF could not be read/);
    expect(await retrieveAs(owner, kbId, { query: 'unicorns moonlit clover', mode: 'keyword' })).toEqual([]);
  });

  it('an empty file ends Failed: the file is empty', async () => {
    const doc = await failed('empty.txt', 'text/plain', Buffer.alloc(0));
    expect(doc).toMatchObject({ status: 'Failed' });
    expect(doc.error).toBe('The file is empty');
  });

  it('a text file of blank lines ends Failed: no text', async () => {
    const doc = await failed('blank.md', 'text/markdown', Buffer.from('\n\n   \n'));
    expect(doc.error).toBe('The document holds no text');
  });

  it('a ZIP that says it is a DOCX ends Failed: not a Word document', async () => {
    const doc = await failed('fake.docx', DOCX, zip({ 'hello.txt': 'not a word document' }));
    expect(doc.error).toMatch(/could not be read as a Word document/);
  });

  it('refuses with 415 a type that lies about itself or is not accepted', async () => {
    const cases: [string, string, Buffer][] = [
      ['fake.pdf', 'application/pdf', Buffer.from('just some text pretending')],
      ['notes.txt', 'text/plain', await pdf(['A PDF named as text.'])],
      ['image.png', 'image/png', Buffer.from('89504e470d0a1a0a', 'hex')],
      ['binary.txt', 'text/plain', Buffer.from([0, 1, 2, 3, 4, 5])],
      ['memo.docx', 'text/plain', Buffer.from('text named docx')],
    ];
    for (const [name, type, data] of cases) {
      const res = await addFile(owner, kbId, name, type, data);
      expect(res, `${name}: ${res.text}`).toAnswer(415, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('refuses a file over the request limit with 413 and another content type with 415', async () => {
    // Over the body limit (the runtime's check) and just within it but over the file limit (the form's).
    for (const size of [4_500_000, 4_420_000]) {
      const big = await addFile(owner, kbId, 'big.txt', 'text/plain', Buffer.alloc(size, 'a'));
      expect(big, String(size)).toAnswer(413);
      expect(big.json.error).toEqual({
        code: 'PAYLOAD_TOO_LARGE',
        message: expect.stringMatching(
          /at most 4,400,000 bytes .*Files up to 10 MB go through POST \/api\/knowledge\/bases\/\{kbId\}\/documents\/presigned-upload/,
        ),
      });
    }
    const xml = await invoke('POST', `${KB}/${kbId}/documents`, {
      token: owner,
      rawBody: '<a/>',
      contentType: 'application/xml',
    });
    expect(xml).toAnswer(415);
    const badJson = await invoke('POST', `${KB}/${kbId}/documents`, { token: owner, body: { title: '', text: '' } });
    expect(badJson).toAnswer(400);
    expect(badJson.json.error.details.map((d: { path: string }) => d.path)).toEqual(['body.title', 'body.text']);
  });
});

describe('presigned uploads (files over what a request carries)', () => {
  const presign = (body: Record<string, unknown>) =>
    invoke('POST', `${KB}/${kbId}/documents/presigned-upload`, { token: owner, body });
  const complete = (uploadId: string) =>
    invoke('POST', `${KB}/${kbId}/documents/presigned-upload/${uploadId}/complete`, { token: owner });
  const put = async (p: { uploadUrl: string; headers: Record<string, string> }, data: Buffer) =>
    (await fetch(p.uploadUrl, { method: 'PUT', headers: p.headers, body: data })).status;

  it('uploads a 5 MB text straight to S3, completes, indexes it and retrieves its sentence', async () => {
    const sentence = 'Cartographers in the archive redraw the coastline after every storm season.';
    // Blank padding makes it big on the wire while indexing stays quick (blank paragraphs hold no chunk).
    const data = Buffer.from(`${sentence}\n\n${' '.repeat(4_500_000)}\n\nThe end of the big file.`);
    expect(data.length).toBeGreaterThan(4_400_000);
    const p = await presign({ fileName: 'big.txt', contentType: 'text/plain', size: data.length, title: 'Big' });
    expect(p).toAnswer(201);
    expect(await complete(p.json.result.uploadId).then((r) => r.status)).toBe(400);
    expect(await put(p.json.result, data)).toBe(200);
    const done = await complete(p.json.result.uploadId);
    expect(done).toAnswer(202);
    expect(done.json.result).toMatchObject({ title: 'Big', status: 'Queued', sizeBytes: data.length });
    expect(await complete(p.json.result.uploadId)).toAnswer(404);
    expect((await settled(owner, kbId, done.json.result.id, 120_000)).status).toBe('Indexed');
    const hits = await retrieveAs(owner, kbId, {
      query: 'cartographers redraw the coastline',
      mode: 'hybrid',
      topK: 3,
    });
    expect(hits[0]!.documentId).toBe(done.json.result.id);
  }, 180_000);

  it('refuses a size over 10 MB at presign (400), and a file whose bytes lie at complete (415, then forgotten)', async () => {
    const huge = await presign({ fileName: 'huge.pdf', contentType: 'application/pdf', size: 10 * 1024 * 1024 + 1 });
    expect(huge).toAnswer(400);
    expect(huge.json.error.details[0].path).toBe('body.size');
    const data = Buffer.from('plain text pretending to be a PDF');
    const p = await presign({ fileName: 'fake.pdf', contentType: 'application/pdf', size: data.length });
    expect(await put(p.json.result, data)).toBe(200);
    const res = await complete(p.json.result.uploadId);
    expect(res).toAnswer(415);
    expect(await complete(p.json.result.uploadId)).toAnswer(404);
  });
});
