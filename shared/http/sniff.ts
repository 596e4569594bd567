/**
 * What an upload's first bytes are, whatever its name or declared type say: each area then decides
 * which of these it accepts and under which type. A client's Content-Type is only a claim.
 */

/** How many first bytes of a file are read to decide what it is. */
export const SNIFF_BYTES = 1024;

const bytesAt = (head: Uint8Array, at: number, bytes: string | readonly number[]) =>
  [...bytes].every((b, i) => head[at + i] === (typeof b === 'string' ? b.charCodeAt(0) : b));

/** The magic numbers of the formats an upload may be. */
const SIGNATURES = {
  png: (h: Uint8Array) => bytesAt(h, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  jpeg: (h: Uint8Array) => bytesAt(h, 0, [0xff, 0xd8, 0xff]),
  gif: (h: Uint8Array) => bytesAt(h, 0, 'GIF87a') || bytesAt(h, 0, 'GIF89a'),
  webp: (h: Uint8Array) => bytesAt(h, 0, 'RIFF') && bytesAt(h, 8, 'WEBP'),
  pdf: (h: Uint8Array) => bytesAt(h, 0, '%PDF-'),
  /** Also every OOXML and OpenDocument file. */
  zip: (h: Uint8Array) => bytesAt(h, 0, [0x50, 0x4b, 0x03, 0x04]),
  /** Legacy Office documents (doc, xls, ppt). */
  ole: (h: Uint8Array) => bytesAt(h, 0, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
};
export type Signature = keyof typeof SIGNATURES;

/** UTF-8 (a BOM allowed) without NUL or other control bytes than tab, LF, vertical tab, form feed and CR. */
function isText(head: Uint8Array): boolean {
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
 * The first of `among` whose magic number the bytes start with; else `text` or `binary`, or `empty`
 * for no bytes. Only the formats a caller names are looked for, so text that happens to start like
 * another format (`GIF89a is...`) stays text to a caller that takes no GIF.
 */
export function sniff<S extends Signature>(head: Uint8Array, among: readonly S[]): S | 'text' | 'binary' | 'empty' {
  if (!head.length) return 'empty';
  return among.find((s) => SIGNATURES[s](head)) ?? (isText(head) ? 'text' : 'binary');
}

/** The media type of a Content-Type value, without its parameters, lower case ('' for none). */
export const mediaType = (contentType: string | undefined) => (contentType ?? '').split(';')[0]!.trim().toLowerCase();
