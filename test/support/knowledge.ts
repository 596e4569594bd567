import { deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, expect } from 'vitest';
import { startS3 } from '#local/s3.ts';
import { s3 } from '#shared/platform/s3.ts';
import { invoke, type InvokeResult } from './invoke.ts';
import { tempDir } from './temp-dir.ts';

/** The knowledge area in the integration tier: a local S3 for originals and keyword indexes (vectors: test-ports). */
let running: ReturnType<typeof startS3> | undefined;
export async function startKnowledgeStandIns() {
  running ??= startS3(tempDir('knowledge-s3-'));
  await running;
  s3.install(undefined);
}
export function useKnowledgeStandIns() {
  beforeAll(startKnowledgeStandIns);
  afterAll(async () => {
    await (await running)?.stop();
    running = undefined;
  });
}

export const KB = '/api/knowledge/bases';

export function multipart(fileName: string, type: string, data: Buffer, fields: Record<string, string> = {}) {
  const boundary = `----kb${crypto.randomUUID().slice(0, 8)}`;
  const extra = Object.entries(fields).map(
    ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  const head = Buffer.from(
    `${extra.join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n` +
      `Content-Type: ${type}\r\n\r\n`,
  );
  return {
    rawBody: Buffer.concat([head, data, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

export async function newBase(token: string, body: Record<string, unknown> = {}) {
  const res = await invoke('POST', KB, { token, body: { name: `KB ${crypto.randomUUID().slice(0, 6)}`, ...body } });
  expect(res.status, res.text).toBe(201);
  return res.json.result as { id: string; chunkSize: number; chunkOverlap: number };
}

export async function addText(token: string, kbId: string, title: string, text: string): Promise<InvokeResult> {
  return invoke('POST', `${KB}/${kbId}/documents`, { token, body: { title, text } });
}

export async function addFile(token: string, kbId: string, fileName: string, type: string, data: Buffer) {
  return invoke('POST', `${KB}/${kbId}/documents`, { token, ...multipart(fileName, type, data) });
}

/** The document as the list shows it. */
export async function documentOf(token: string, kbId: string, documentId: string) {
  const res = await invoke('GET', `${KB}/${kbId}/documents`, { token, query: { pageSize: 100 } });
  expect(res.status, res.text).toBe(200);
  return (
    res.json.result.items as {
      id: string;
      status: string;
      error: string | null;
      chunkCount: number;
      tokenCount: number;
      progressPercent: number;
    }[]
  ).find((d) => d.id === documentId);
}

/** Polls the document list until the document leaves Queued/Processing (the test queue runs at once; the local one later). */
export async function settled(token: string, kbId: string, documentId: string, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const d = await documentOf(token, kbId, documentId);
    if (d && d.status !== 'Queued' && d.status !== 'Processing') return d;
    if (Date.now() > until) throw new Error(`Document ${documentId} still ${d?.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function retrieveAs(token: string, kbId: string, body: Record<string, unknown>) {
  const res = await invoke('POST', `${KB}/${kbId}/retrieve`, { token, body });
  expect(res.status, res.text).toBe(200);
  return res.json.result as {
    chunkId: string;
    documentId: string;
    documentTitle: string;
    position: number;
    text: string;
    score: number;
    keywordScore: number | null;
    vectorScore: number | null;
  }[];
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf: Buffer) => {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

/** A ZIP archive (deflated entries) written by hand: enough for a DOCX fixture without a zip package. */
export function zip(entries: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const raw = Buffer.from(content, 'utf8');
    const data = deflateRawSync(raw);
    const nameBuf = Buffer.from(name, 'utf8');
    const crc = crc32(raw);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(0, 10);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(raw.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, data);
    centrals.push(central, nameBuf);
    offset += local.length + nameBuf.length + data.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(entries).length, 8);
  end.writeUInt16LE(Object.keys(entries).length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A minimal Word document with one paragraph per entry. */
export function docx(paragraphs: string[]): Buffer {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${escapeXml(p)}</w:t></w:r></w:p>`).join('');
  return zip({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  });
}

/** A one-page PDF per paragraph group, through pdf-lib (already a dependency). */
export async function pdf(paragraphs: string[]): Promise<Buffer> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  let y = 800;
  for (const p of paragraphs) {
    page.drawText(p, { x: 40, y, size: 10, font });
    y -= 30;
  }
  return Buffer.from(await doc.save());
}
