import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';

/**
 * What a DOCX (a ZIP) may unpack to before a parser opens it. A Word document of at most 10 MB
 * holds a few dozen parts, and images stored nearly as they are; a file that unpacks to far more is
 * built to exhaust the reader (a decompression bomb). The reader (mammoth) builds a tree of every XML
 * element, about a kilobyte each: 500,000 empty paragraphs (a 5 KB file) took it past 384 MB, so the
 * elements are counted too (300,000 is a document of several hundred pages).
 */
export const ZIP_LIMITS = { entries: 1_000, unpackedBytes: 64 * 1024 * 1024, xmlElements: 300_000 } as const;

export class ZipRefused extends Error {}

const inflate = promisify(inflateRaw);
const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;
const damaged = () => new ZipRefused('damaged');

/** One entry of the central directory: where its data is and what it says it unpacks to. */
interface Entry {
  name: string;
  method: number;
  compressed: number;
  unpacked: number;
  localOffset: number;
}

function centralDirectory(bytes: Uint8Array, limits: typeof ZIP_LIMITS): Entry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--)
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  if (end < 0) throw damaged();
  const count = view.getUint16(end + 10, true);
  const offset = view.getUint32(end + 16, true);
  if (count === 0xffff || offset === 0xffffffff)
    throw new ZipRefused('it uses ZIP64, which no Word document of this size needs');
  if (count > limits.entries)
    throw new ZipRefused(
      `it holds ${count.toLocaleString('en')} files inside; at most ${limits.entries.toLocaleString('en')} are read`,
    );
  const entries: Entry[] = [];
  let declared = 0;
  for (let p = offset; entries.length < count; ) {
    if (p + 46 > end || view.getUint32(p, true) !== 0x02014b50) throw damaged();
    const nameLength = view.getUint16(p + 28, true);
    const entry = {
      name: new TextDecoder().decode(bytes.subarray(p + 46, p + 46 + nameLength)),
      method: view.getUint16(p + 10, true),
      compressed: view.getUint32(p + 20, true),
      unpacked: view.getUint32(p + 24, true),
      localOffset: view.getUint32(p + 42, true),
    };
    declared += entry.unpacked;
    if (declared > limits.unpackedBytes)
      throw new ZipRefused(`it unpacks to more than ${mb(limits.unpackedBytes)}; at most that is read`);
    entries.push(entry);
    p += 46 + nameLength + view.getUint16(p + 30, true) + view.getUint16(p + 32, true);
  }
  return entries;
}

/** How many tags open in `xml`, counted up to one past `most`. */
function tagsIn(xml: Uint8Array, most: number): number {
  let n = 0;
  for (let i = xml.indexOf(0x3c); i >= 0 && n <= most; i = xml.indexOf(0x3c, i + 1)) if (xml[i + 1] !== 0x2f) n++;
  return n;
}

/**
 * Refuses a ZIP whose entries are too many or unpack to too much: first by what its central
 * directory declares (before anything is unpacked), then by unpacking each entry with the budget
 * that is left as a hard cap on the output, since a crafted file can declare small sizes and still
 * expand without end; and one whose XML holds more elements than the reader can build. Throws
 * ZipRefused with the reason; a damaged archive is left to the parser, which says so.
 */
export async function checkZip(bytes: Uint8Array, limits = ZIP_LIMITS): Promise<void> {
  let entries: Entry[];
  try {
    entries = centralDirectory(bytes, limits);
  } catch (err) {
    if (err instanceof ZipRefused && err.message !== 'damaged') throw err;
    return;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let left = limits.unpackedBytes;
  let elements = 0;
  for (const e of entries) {
    const at = e.localOffset;
    if (at + 30 > bytes.length || view.getUint32(at, true) !== 0x04034b50) return;
    const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
    const data = bytes.subarray(start, start + e.compressed);
    let unpacked: Uint8Array = data;
    if (e.method === 8) {
      try {
        unpacked = await inflate(data, { maxOutputLength: Math.max(1, left) });
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
          throw new ZipRefused(`it unpacks to more than ${mb(limits.unpackedBytes)}; at most that is read`);
        return;
      }
    }
    left -= unpacked.length;
    if (left < 0) throw new ZipRefused(`it unpacks to more than ${mb(limits.unpackedBytes)}; at most that is read`);
    if (/\.(xml|rels)$/i.test(e.name)) elements += tagsIn(unpacked, limits.xmlElements - elements);
    if (elements > limits.xmlElements)
      throw new ZipRefused(
        `it holds more than ${limits.xmlElements.toLocaleString('en')} XML elements (paragraphs, runs, formatting); split it into smaller documents`,
      );
  }
}
