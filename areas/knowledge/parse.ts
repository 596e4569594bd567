import { readInThread, THREAD_LIMITS, type ThreadLimits } from './parse-thread.ts';
import type { KnowledgeFileType } from './vocabulary.ts';
import { checkZip, ZipRefused } from './zip-check.ts';

/**
 * The text of a stored original. Each parser is a maintained library loaded only in the worker,
 * only for its type (docs/decisions/knowledge.md, "Worker": unpdf for PDF and mammoth for DOCX, both
 * in a bounded thread; html-to-text for HTML). A file that cannot be read, or is refused by a bound,
 * throws ParseError with the reason shown to the user.
 */
export class ParseError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ParseError';
  }
}

const utf8 = (bytes: Uint8Array) => new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');

const DAMAGED = {
  pdf: 'The PDF could not be read: the file is damaged or is not really a PDF',
  docx: 'The file could not be read as a Word document (DOCX): it is damaged or another kind of file',
} as const;
const NAME = { pdf: 'The PDF', docx: 'The Word document (DOCX)' } as const;

/** A PDF or DOCX through the bounded thread (parse-thread.ts), each way it can be refused said as a reason. */
async function boundedText(kind: 'pdf' | 'docx', bytes: Uint8Array, limits: ThreadLimits): Promise<string> {
  if (kind === 'docx')
    await checkZip(bytes).catch((err) =>
      Promise.reject(err instanceof ZipRefused ? new ParseError(`${NAME.docx} was not read: ${err.message}`) : err),
    );
  const out = await readInThread(kind, bytes, limits);
  if ('text' in out) return out.text;
  switch (out.refused) {
    case 'pages':
      throw new ParseError(
        `${NAME.pdf} has ${out.pages.toLocaleString('en')} pages; at most ${limits.pdfPages.toLocaleString('en')} are read. Split it into smaller files`,
      );
    case 'memory':
      throw new ParseError(
        `${NAME[kind]} was not read: reading it needs more than ${limits.heapMb} MB of memory (a file built to exhaust the reader, or too complex); split or simplify it`,
      );
    case 'time':
      throw new ParseError(
        `${NAME[kind]} was not read: reading it took longer than ${Math.ceil(limits.timeoutMs / 1000)} s; split or simplify it`,
      );
    default:
      throw new ParseError(DAMAGED[kind]);
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

export async function extractText(
  type: KnowledgeFileType,
  bytes: Uint8Array,
  limits: ThreadLimits = THREAD_LIMITS,
): Promise<string> {
  if (!bytes.length) throw new ParseError('The file is empty');
  const text =
    type === 'application/pdf'
      ? await boundedText('pdf', bytes, limits)
      : type === 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
        ? await boundedText('docx', bytes, limits)
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
