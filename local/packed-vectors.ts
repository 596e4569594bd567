import type { VectorMetadata } from '#areas/knowledge/vectors/store.ts';
import { dotKernel, type Scores, type WasmMemory } from './dot-kernel.ts';

export interface Nearest {
  key: string;
  score: number;
  metadata: VectorMetadata;
}

const PAGE = 65_536;
/** The query's place at the start of the memory: room for the largest dimension (4,096 floats). */
const QUERY_BYTES = 4_096 * 4;

/**
 * One index's vectors packed as float32 (S3 Vectors' own data type) in one WebAssembly memory:
 * 100,000 vectors of 256 dimensions are 100 MB here, where arrays of numbers were close to a
 * gigabyte. A query scores every vector with a SIMD kernel (dot-kernel.ts), then keeps only its topK
 * best: about 15 ms at 100,000 vectors, where a JavaScript loop took 60-80.
 *
 * Memory: [query][vectors, `stride` floats each, zero-padded to a multiple of 4][scores].
 */
export class PackedIndex {
  private readonly stride: number;
  private readonly memory: WasmMemory;
  private readonly scores: Scores;
  private capacity = 0;
  private data!: Float32Array;
  private out!: Float32Array;
  private norms = new Float64Array(0);
  private readonly keys: string[] = [];
  private readonly metadata: VectorMetadata[] = [];
  private readonly slots = new Map<string, number>();

  constructor(
    readonly dimension: number,
    capacity = 64,
  ) {
    this.stride = Math.ceil(dimension / 4) * 4;
    ({ memory: this.memory, scores: this.scores } = dotKernel());
    this.reserve(capacity);
  }

  get size() {
    return this.keys.length;
  }

  set(key: string, vector: ArrayLike<number>, metadata: VectorMetadata) {
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = this.keys.length;
      this.reserve(slot + 1);
      this.keys.push(key);
      this.metadata.push(metadata);
      this.slots.set(key, slot);
    } else this.metadata[slot] = metadata;
    const at = slot * this.stride;
    this.data.set(vector, at);
    let sum = 0;
    for (let i = at; i < at + this.dimension; i++) sum += this.data[i]! * this.data[i]!;
    this.norms[slot] = Math.sqrt(sum);
  }

  get(key: string): { vector: number[]; metadata: VectorMetadata } | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    return { vector: Array.from(this.vectors(slot, slot + 1)), metadata: this.metadata[slot]! };
  }

  /** The last vector moves into the freed slot, so the packed range never has holes. */
  delete(key: string) {
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    const last = this.keys.length - 1;
    if (slot !== last) {
      this.data.copyWithin(slot * this.stride, last * this.stride, (last + 1) * this.stride);
      this.norms[slot] = this.norms[last]!;
      this.keys[slot] = this.keys[last]!;
      this.metadata[slot] = this.metadata[last]!;
      this.slots.set(this.keys[slot]!, slot);
    }
    this.keys.pop();
    this.metadata.pop();
    this.slots.delete(key);
  }

  /** Cosine similarity, best first (ties by key), among the vectors whose metadata `accept`s. */
  nearest(query: readonly number[], topK: number, accept: (m: VectorMetadata) => boolean): Nearest[] {
    const q = new Float32Array(this.memory.buffer, 0, this.stride);
    q.fill(0);
    q.set(query.slice(0, this.dimension));
    let qNorm = 0;
    for (const v of q) qNorm += v * v;
    qNorm = Math.sqrt(qNorm);
    const count = this.keys.length;
    this.scores(0, QUERY_BYTES, count, this.stride * 4, this.out.byteOffset);
    const { out, norms, metadata } = this;
    const best: { slot: number; score: number }[] = [];
    for (let slot = 0; slot < count; slot++) {
      if (!accept(metadata[slot]!)) continue;
      const denominator = qNorm * norms[slot]!;
      const score = denominator ? out[slot]! / denominator : 0;
      if (best.length === topK && !this.before(score, slot, best[topK - 1]!)) continue;
      let to = best.length === topK ? topK - 1 : best.length;
      while (to > 0 && this.before(score, slot, best[to - 1]!)) {
        best[to] = best[to - 1]!;
        to--;
      }
      best[to] = { slot, score };
    }
    return best.map(({ slot, score }) => ({ key: this.keys[slot]!, score, metadata: { ...this.metadata[slot]! } }));
  }

  /** Keys and metadata in slot order; `vectors(from, to)` holds their vectors in the same order. */
  entries(): { key: string; metadata: VectorMetadata }[] {
    return this.keys.map((key, slot) => ({ key, metadata: this.metadata[slot]! }));
  }

  /** The vectors of slots `from` to `to`, unpadded, one after the other. */
  vectors(from: number, to: number): Float32Array {
    const out = new Float32Array((to - from) * this.dimension);
    for (let slot = from; slot < to; slot++)
      out.set(
        this.data.subarray(slot * this.stride, slot * this.stride + this.dimension),
        (slot - from) * this.dimension,
      );
    return out;
  }

  private before(score: number, slot: number, other: { slot: number; score: number }) {
    return score > other.score || (score === other.score && this.keys[slot]! < this.keys[other.slot]!);
  }

  /** Grows by half: the vectors stay where they are, the scratch scores move past them. */
  private reserve(count: number) {
    if (count <= this.capacity) return;
    const capacity = Math.max(count, Math.ceil(this.capacity * 1.5));
    const bytes = QUERY_BYTES + capacity * this.stride * 4 + capacity * 4;
    const pages = Math.ceil(bytes / PAGE) - this.memory.buffer.byteLength / PAGE;
    if (pages > 0) this.memory.grow(pages);
    this.capacity = capacity;
    // Old scores may lie where new vectors' padding goes: harmless, the query's padding is zeros.
    this.data = new Float32Array(this.memory.buffer, QUERY_BYTES, capacity * this.stride);
    this.out = new Float32Array(this.memory.buffer, QUERY_BYTES + capacity * this.stride * 4, capacity);
    const norms = new Float64Array(capacity);
    norms.set(this.norms);
    this.norms = norms;
  }
}
