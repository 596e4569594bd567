import type { VectorMetadata } from '#areas/knowledge/vectors/port.ts';

export interface Nearest {
  key: string;
  score: number;
  metadata: VectorMetadata;
}

/**
 * One index's vectors packed in one Float32Array (S3 Vectors' own data type): 100,000 vectors of 256
 * dimensions are 100 MB here, where arrays of numbers were close to a gigabyte, and a query is one
 * pass over contiguous memory that keeps only its topK best, not a sort of every vector.
 */
export class PackedIndex {
  private data: Float32Array;
  private norms: Float32Array;
  private readonly keys: string[] = [];
  private readonly metadata: VectorMetadata[] = [];
  private readonly slots = new Map<string, number>();

  constructor(
    readonly dimension: number,
    capacity = 64,
  ) {
    this.data = new Float32Array(capacity * dimension);
    this.norms = new Float32Array(capacity);
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
    const at = slot * this.dimension;
    this.data.set(vector, at);
    let sum = 0;
    for (let i = at; i < at + this.dimension; i++) sum += this.data[i]! * this.data[i]!;
    this.norms[slot] = Math.sqrt(sum);
  }

  get(key: string): { vector: number[]; metadata: VectorMetadata } | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    const at = slot * this.dimension;
    return { vector: Array.from(this.data.subarray(at, at + this.dimension)), metadata: this.metadata[slot]! };
  }

  /** The last vector moves into the freed slot, so the packed range never has holes. */
  delete(key: string) {
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    const last = this.keys.length - 1;
    if (slot !== last) {
      this.data.copyWithin(slot * this.dimension, last * this.dimension, (last + 1) * this.dimension);
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
    const q = Float32Array.from(query);
    let qNorm = 0;
    for (const v of q) qNorm += v * v;
    qNorm = Math.sqrt(qNorm);
    const best: { slot: number; score: number }[] = [];
    const dim = this.dimension;
    for (let slot = 0; slot < this.keys.length; slot++) {
      if (!accept(this.metadata[slot]!)) continue;
      let dot = 0;
      const at = slot * dim;
      for (let i = 0; i < dim; i++) dot += q[i]! * this.data[at + i]!;
      const denominator = qNorm * this.norms[slot]!;
      const score = denominator ? dot / denominator : 0;
      if (best.length === topK && !this.before(score, slot, best[topK - 1]!)) continue;
      let i = best.length === topK ? topK - 1 : best.length;
      while (i > 0 && this.before(score, slot, best[i - 1]!)) {
        best[i] = best[i - 1]!;
        i--;
      }
      best[i] = { slot, score };
    }
    return best.map(({ slot, score }) => ({ key: this.keys[slot]!, score, metadata: { ...this.metadata[slot]! } }));
  }

  /** Keys and metadata in slot order; `packed()` holds their vectors in the same order. */
  entries(): { key: string; metadata: VectorMetadata }[] {
    return this.keys.map((key, slot) => ({ key, metadata: this.metadata[slot]! }));
  }

  packed(): Float32Array {
    return this.data.subarray(0, this.keys.length * this.dimension);
  }

  private before(score: number, slot: number, other: { slot: number; score: number }) {
    return score > other.score || (score === other.score && this.keys[slot]! < this.keys[other.slot]!);
  }

  private reserve(count: number) {
    if (count <= this.norms.length) return;
    const capacity = Math.max(count, Math.ceil(this.norms.length * 1.5));
    const data = new Float32Array(capacity * this.dimension);
    data.set(this.data);
    this.data = data;
    const norms = new Float32Array(capacity);
    norms.set(this.norms);
    this.norms = norms;
  }
}
