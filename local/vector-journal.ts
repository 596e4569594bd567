import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { VectorMetadata, VectorRecord } from '#areas/knowledge/vectors/store.ts';
import { PackedIndex } from './packed-vectors.ts';

/** Where a persisted store keeps each index's changes; the in-memory store has none. */
export interface VectorJournal {
  load(name: string): PackedIndex | undefined;
  created(name: string, dimension: number): void;
  put(name: string, dimension: number, vectors: VectorRecord[]): void;
  deleted(name: string, keys: string[]): void;
  dropped(name: string): void;
}

/**
 * A line of an index's journal: the header, a write (keys and metadata, and the vectors' float32
 * bytes in base64, in the same order), or a delete.
 */
type Line =
  | { dimension: number }
  | { put: { key: string; metadata: VectorMetadata }[]; data: string }
  | { delete: string[] };

const BATCH = 500;
const READ_BYTES = 4 << 20;

const encode = (data: Float32Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');

function packed(dimension: number, vectors: ArrayLike<number>[]): Float32Array {
  const data = new Float32Array(vectors.length * dimension);
  for (const [i, v] of vectors.entries()) data.set(v, i * dimension);
  return data;
}

function decode(base64: string): Float32Array {
  const bytes = Buffer.from(base64, 'base64');
  const data = new Float32Array(bytes.length / 4);
  new Uint8Array(data.buffer).set(bytes);
  return data;
}

/** The journal's lines, read a few megabytes at a time: a large index is never in memory twice. */
export function* journalLines(file: string, readBytes = READ_BYTES): Generator<Line> {
  const fd = openSync(file, 'r');
  try {
    let chunk = Buffer.alloc(readBytes);
    let kept = 0;
    for (;;) {
      const read = readSync(fd, chunk, kept, chunk.length - kept, null);
      const filled = kept + read;
      let start = 0;
      for (let end = chunk.indexOf(10, start); end !== -1 && end < filled; end = chunk.indexOf(10, start)) {
        if (end > start) yield JSON.parse(chunk.toString('utf8', start, end)) as Line;
        start = end + 1;
      }
      if (!read) {
        if (filled > start) yield JSON.parse(chunk.toString('utf8', start, filled)) as Line;
        return;
      }
      // A line longer than what is left: keep its start, in a larger buffer if it needs one.
      kept = filled - start;
      const next = kept > chunk.length / 2 ? Buffer.alloc(chunk.length * 2) : chunk;
      chunk.copy(next, 0, start, filled);
      chunk = next;
    }
  } finally {
    closeSync(fd);
  }
}

function putLines(index: PackedIndex): string {
  const entries = index.entries();
  const out: string[] = [];
  for (let i = 0; i < entries.length; i += BATCH) {
    const data = encode(index.vectors(i, Math.min(entries.length, i + BATCH)));
    out.push(JSON.stringify({ put: entries.slice(i, i + BATCH), data }));
  }
  return out.map((l) => `${l}\n`).join('');
}

/**
 * The journal of the stand-in `npm start` installs: each index's changes are appended to
 * LOCAL_DATA_DIR/knowledge-vectors/<index>.ndjson as they happen, so a write costs what it writes
 * however large the index (the whole store used to be rewritten as JSON a second after any change,
 * which at 100,000 vectors blocked the process for seconds). An index is read back when first used
 * after a restart; a journal holding more than twice its live vectors is rewritten then.
 */
export function fileJournal(dataDir: string): VectorJournal {
  const dir = join(dataDir, 'knowledge-vectors');
  mkdirSync(dir, { recursive: true });
  const file = (name: string) => join(dir, `${name}.ndjson`);
  const append = (name: string, line: Line) => appendFileSync(file(name), `${JSON.stringify(line)}\n`);
  const rewrite = (name: string, index: PackedIndex) => {
    const tmp = `${file(name)}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ dimension: index.dimension })}\n${putLines(index)}`);
    renameSync(tmp, file(name));
  };
  const journal: VectorJournal = {
    load(name) {
      if (!existsSync(file(name))) return undefined;
      let index: PackedIndex | undefined;
      let written = 0;
      for (const line of journalLines(file(name))) {
        if ('dimension' in line) index = new PackedIndex(line.dimension);
        else if (!index) break;
        else if ('put' in line) {
          const data = decode(line.data);
          const dim = index.dimension;
          for (const [i, { key, metadata }] of line.put.entries())
            index.set(key, data.subarray(i * dim, (i + 1) * dim), metadata);
          written += line.put.length;
        } else for (const key of line.delete) index.delete(key);
      }
      if (index && written > 2 * index.size + BATCH) rewrite(name, index);
      return index;
    },
    created: (name, dimension) => writeFileSync(file(name), `${JSON.stringify({ dimension })}\n`),
    put: (name, dimension, vectors) =>
      append(name, {
        put: vectors.map(({ key, metadata }) => ({ key, metadata })),
        data: encode(
          packed(
            dimension,
            vectors.map((v) => v.vector),
          ),
        ),
      }),
    deleted: (name, keys) => append(name, { delete: keys }),
    dropped: (name) => rmSync(file(name), { force: true }),
  };
  migrateSnapshot(dataDir, rewrite);
  return journal;
}

/** Earlier runs kept every index in one LOCAL_DATA_DIR/knowledge-vectors.json: moved into journals once. */
function migrateSnapshot(dataDir: string, rewrite: (name: string, index: PackedIndex) => void) {
  const old = join(dataDir, 'knowledge-vectors.json');
  if (!existsSync(old)) return;
  const snapshot = JSON.parse(readFileSync(old, 'utf8')) as Record<
    string,
    { dimension: number; vectors: VectorRecord[] }
  >;
  for (const [name, { dimension, vectors }] of Object.entries(snapshot)) {
    const index = new PackedIndex(dimension);
    for (const v of vectors) index.set(v.key, v.vector, v.metadata);
    rewrite(name, index);
  }
  rmSync(old);
}
