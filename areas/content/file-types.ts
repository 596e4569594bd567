import { mediaType, type Signature, sniff } from '#shared/http/sniff.ts';

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

/** The types a format's bytes may be declared as. */
const FAMILIES: Record<Signature, readonly string[]> = {
  png: ['image/png'],
  jpeg: ['image/jpeg'],
  gif: ['image/gif'],
  webp: ['image/webp'],
  pdf: ['application/pdf'],
  zip: ALLOWED_TYPES.filter((t) => t.includes('openxmlformats') || t.includes('opendocument')),
  ole: ['application/msword', 'application/vnd.ms-excel', 'application/vnd.ms-powerpoint'],
};
const FORMATS = Object.keys(FAMILIES) as Signature[];

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
const isMarkup = (head: Uint8Array) => MARKUP.test(new TextDecoder('utf-8').decode(head));

/**
 * The content type to store: the declared one when the bytes agree with it, the sniffed one when
 * only one type fits; null (415) when the bytes are not an allowed type or contradict the declared one.
 */
export function detectType(head: Uint8Array, declared: string | undefined): string | null {
  const found = sniff(head, FORMATS);
  const wanted = mediaType(declared);
  if (found === 'binary' || found === 'empty') return null;
  if (found === 'text') {
    if (isMarkup(head)) return null;
    return wanted === 'text/csv'
      ? 'text/csv'
      : wanted === 'text/plain' || !wanted || wanted === 'application/octet-stream'
        ? 'text/plain'
        : null;
  }
  const family = FAMILIES[found];
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
