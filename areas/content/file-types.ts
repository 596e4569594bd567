/**
 * The type of an uploaded file, decided by its first bytes (the declared type alone is never
 * trusted). Images, PDF, office documents (OOXML and legacy OLE) and plain text or CSV. SVG is
 * not accepted: it can carry script; neither is text that holds HTML, XML or SVG markup.
 */
export const ALLOWED_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'text/plain',
  'text/csv',
] as const;

const startsWith = (buf: Uint8Array, bytes: number[], at = 0) => bytes.every((b, i) => buf[at + i] === b);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));
const ZIP = [0x50, 0x4b, 0x03, 0x04];
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** What the bytes are, as a family: a declared type must belong to it. */
function sniff(head: Uint8Array): string[] | 'text' | null {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return ['image/png'];
  if (startsWith(head, [0xff, 0xd8, 0xff])) return ['image/jpeg'];
  if (startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a'))) return ['image/gif'];
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)) return ['image/webp'];
  if (startsWith(head, ascii('%PDF-'))) return ['application/pdf'];
  if (startsWith(head, ZIP))
    return ALLOWED_TYPES.filter((t) => t.includes('openxmlformats') || t.includes('opendocument'));
  if (startsWith(head, OLE)) return ['application/msword', 'application/vnd.ms-excel', 'application/vnd.ms-powerpoint'];
  return isText(head) ? 'text' : null;
}

/** How many first bytes of a file are read to decide its type. */
export const SNIFF_BYTES = 1024;

/**
 * Markup a browser could render: a tag a browser's type sniffing takes for HTML (the WHATWG
 * mimesniff list and a few more that run script), an SVG or XML document, a comment or a doctype,
 * anywhere in the bytes read. `Ann <ann@example.com>` is not markup; `<a href=...>` is.
 */
const TAGS = [
  ...['html', 'head', 'body', 'script', 'iframe', 'frame', 'frameset', 'svg', 'math', 'style', 'title', 'meta'],
  ...['link', 'base', 'object', 'embed', 'applet', 'form', 'img', 'a', 'b', 'br', 'p', 'div', 'font', 'table'],
  ...['h1', 'xml'],
];
const MARKUP = new RegExp(`<(!doctype|!--|\\?xml|(${TAGS.join('|')})[\\s/>])`, 'i');
export const isMarkup = (head: Uint8Array) => MARKUP.test(new TextDecoder('utf-8').decode(head));

/** UTF-8 without NUL or other control bytes than tab, CR and LF. */
function isText(head: Uint8Array) {
  if (!head.length) return false;
  if (head.some((b) => b < 0x09 || (b > 0x0d && b < 0x20) || b === 0x7f)) return false;
  try {
    // A multi-byte character cut at the end of the sample is fine.
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 3)));
    return true;
  } catch {
    return false;
  }
}

/**
 * The content type to store: the declared one when the bytes agree with it, the sniffed one when
 * only one type fits; null (415) when the bytes are not an allowed type or contradict the declared one.
 */
export function detectType(head: Uint8Array, declared: string | undefined): string | null {
  const family = sniff(head);
  const wanted = (declared ?? '').split(';')[0]!.trim().toLowerCase();
  if (family === null) return null;
  if (family === 'text') {
    if (isMarkup(head)) return null;
    return wanted === 'text/csv'
      ? 'text/csv'
      : wanted === 'text/plain' || !wanted || wanted === 'application/octet-stream'
        ? 'text/plain'
        : null;
  }
  if (family.includes(wanted)) return wanted;
  if (!wanted || wanted === 'application/octet-stream') return family[0]!;
  return null;
}

/** The extensions a stored file of each type may keep; the first is given to a name without one of them. */
const EXTENSIONS: Record<(typeof ALLOWED_TYPES)[number], string[]> = {
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg'],
  'image/gif': ['gif'],
  'image/webp': ['webp'],
  'application/pdf': ['pdf'],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['docx'],
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': ['xlsx'],
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': ['pptx'],
  'application/msword': ['doc'],
  'application/vnd.ms-excel': ['xls'],
  'application/vnd.ms-powerpoint': ['ppt'],
  'application/vnd.oasis.opendocument.text': ['odt'],
  'application/vnd.oasis.opendocument.spreadsheet': ['ods'],
  'text/plain': ['txt'],
  'text/csv': ['csv'],
};

/**
 * The name a file is stored and offered under: safe (see safeFileName) and ending in an extension of
 * its checked type (`page.html` checked as text/plain is stored as `page.txt`).
 */
export function storedFileName(name: string, type: string): string {
  const safe = safeFileName(name);
  const allowed = EXTENSIONS[type as keyof typeof EXTENSIONS] ?? ['bin'];
  const dot = safe.lastIndexOf('.');
  const [base, ext] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot + 1).toLowerCase()] : [safe, ''];
  if (allowed.includes(ext)) return `${base}.${ext}`;
  return `${base.slice(0, 110) || 'file'}.${allowed[0]}`;
}

/** A file name safe in an S3 key and a Content-Disposition header. */
export const safeFileName = (name: string) =>
  name
    .replace(/^.*[\\/]/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+/, '')
    .slice(0, 120) || 'file';
