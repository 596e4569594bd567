import { createDeflateRaw, crc32, deflateRawSync } from 'node:zlib';

/**
 * Knowledge uploads built in the test, without a zip or PDF package: Word documents, PDFs, and the
 * files built to exhaust a reader (decompression and page bombs).
 */
interface ZipPart {
  name: string;
  /** The deflated bytes, and what they unpack to. */
  data: Buffer;
  size: number;
  crc: number;
}

const deflated = (name: string, content: string): ZipPart => {
  const raw = Buffer.from(content, 'utf8');
  return { name, data: deflateRawSync(raw), size: raw.length, crc: crc32(raw) };
};

/** A ZIP archive (deflated entries) written by hand: enough for a DOCX fixture without a zip package. */
export function zip(entries: Record<string, string>): Buffer {
  return zipOf(Object.entries(entries).map(([name, content]) => deflated(name, content)));
}

function zipOf(parts: ZipPart[], declare: (p: ZipPart) => number = (p) => p.size): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const nameBuf = Buffer.from(part.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(0, 10);
    local.writeUInt32LE(part.crc, 14);
    local.writeUInt32LE(part.data.length, 18);
    local.writeUInt32LE(declare(part), 22);
    local.writeUInt16LE(nameBuf.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(part.crc, 16);
    central.writeUInt32LE(part.data.length, 20);
    central.writeUInt32LE(declare(part), 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, part.data);
    centrals.push(central, nameBuf);
    offset += local.length + nameBuf.length + part.data.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A minimal Word document with one paragraph per entry. */
export function docx(paragraphs: string[]): Buffer {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${escapeXml(p)}</w:t></w:r></w:p>`).join('');
  return zip({ ...DOCX_PACKAGE, 'word/document.xml': wordDocument(body) });
}

const wordDocument = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`;

const DOCX_PACKAGE = {
  '[Content_Types].xml':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  '_rels/.rels':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
};

/** A DOCX of `count` empty paragraphs: a few hundred KB that a DOM-building reader inflates without end. */
export const docxOfEmptyParagraphs = (count: number) =>
  zip({ ...DOCX_PACKAGE, 'word/document.xml': wordDocument('<w:p/>'.repeat(count)) });

/**
 * A decompression bomb shaped as a DOCX: its document part unpacks to `unpackedMb` MB of spaces,
 * deflated as a stream (never held whole). `declaredMb` is what its headers claim (the truth unless given).
 */
export async function docxBomb(unpackedMb: number, declaredMb = unpackedMb): Promise<Buffer> {
  const deflate = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (b: Buffer) => out.push(b));
  const done = new Promise((r) => deflate.on('end', r));
  const head = Buffer.from(wordDocument('<w:p><w:r><w:t>x</w:t></w:r></w:p>'));
  const spaces = Buffer.alloc(1 << 20, 0x20);
  let crc = crc32(head);
  deflate.write(head);
  for (let i = 0; i < unpackedMb; i++) {
    crc = crc32(spaces, crc);
    if (!deflate.write(spaces)) await new Promise((r) => deflate.once('drain', r));
  }
  deflate.end();
  await done;
  const bomb: ZipPart = {
    name: 'word/document.xml',
    data: Buffer.concat(out),
    size: head.length + unpackedMb * (1 << 20),
    crc,
  };
  const parts = Object.entries(DOCX_PACKAGE).map(([name, content]) => deflated(name, content));
  return zipOf([...parts, bomb], (p) => (p === bomb ? Math.min(0xfffffffe, declaredMb * (1 << 20)) : p.size));
}

/** A ZIP of `count` tiny entries: the entry count alone is the attack. */
export const zipOfManyEntries = (count: number) =>
  zipOf(Array.from({ length: count }, (_, i) => deflated(`word/part${i}.xml`, '<x/>')));

/**
 * A PDF of `pages` pages written by hand (pdf-lib takes seconds per thousand pages): every page draws
 * one line of text from one shared content stream, so the file stays small while a reader that reads
 * every page works through them all.
 */
export function manyPagePdf(pages: number): Buffer {
  const objects: string[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Count ${pages} /Kids [${Array.from({ length: pages }, (_, i) => `${i + 5} 0 R`).join(' ')}] >>`,
    '<< /Length 44 >>\nstream\nBT /F1 12 Tf 20 20 Td (A page of text.) Tj ET\nendstream',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...Array.from(
      { length: pages },
      () =>
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 50] /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>',
    ),
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) body += `${String(o).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
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
