import type { KnowledgeFileType } from './vocabulary.ts';

/**
 * The text of a stored original. Each parser is a maintained library loaded only here, only in
 * the worker, only for its type (docs/decisions/knowledge.md, "Worker": unpdf for PDF, mammoth for DOCX, html-to-text
 * for HTML). A file that cannot be read throws ParseError with the reason shown to the user.
 */
export class ParseError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ParseError';
  }
}

const utf8 = (bytes: Uint8Array) => new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');

async function pdfText(bytes: Uint8Array): Promise<string> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  try {
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    const { text } = await extractText(pdf, { mergePages: false });
    return text.join('\n\n');
  } catch {
    throw new ParseError('The PDF could not be read: the file is damaged or is not really a PDF');
  }
}

async function docxText(bytes: Uint8Array): Promise<string> {
  const { default: mammoth } = await import('mammoth');
  try {
    const { value } = await mammoth.extractRawText({ buffer: Buffer.from(bytes) });
    return value;
  } catch {
    throw new ParseError('The file could not be read as a Word document (DOCX): it is damaged or another kind of file');
  }
}

async function htmlText(bytes: Uint8Array): Promise<string> {
  const { convert } = await import('html-to-text');
  return convert(utf8(bytes), {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
    ],
  });
}

export async function extractText(type: KnowledgeFileType, bytes: Uint8Array): Promise<string> {
  if (!bytes.length) throw new ParseError('The file is empty');
  const text =
    type === 'application/pdf'
      ? await pdfText(bytes)
      : type === 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
        ? await docxText(bytes)
        : type === 'text/html'
          ? await htmlText(bytes)
          : utf8(bytes);
  if (!text.trim())
    throw new ParseError(
      type === 'application/pdf'
        ? 'The PDF holds no text (a scanned image needs OCR first)'
        : 'The document holds no text',
    );
  return text;
}
