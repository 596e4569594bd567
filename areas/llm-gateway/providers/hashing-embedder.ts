/**
 * The local embedding model (`local-embed`): a deterministic feature-hashing embedder, so tests can
 * predict similarities without a model download. Exact algorithm (also in the README):
 * lowercase, split on non-letters/digits; each word adds +1 and each pair of neighbouring words
 * adds +0.5 at dimension `fnv1a(feature) mod 256`, with the sign taken from bit 0 of
 * `fnv1a('#' + feature)`; the vector is L2-normalised (all zeros for text without words).
 */
const HASHING_DIMENSIONS = 256;

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function add(vector: Float64Array, feature: string, weight: number) {
  const sign = fnv1a(`#${feature}`) & 1 ? -1 : 1;
  const dimension = fnv1a(feature) % HASHING_DIMENSIONS;
  vector[dimension] = (vector[dimension] ?? 0) + sign * weight;
}

export function hashingEmbedding(text: string): number[] {
  const vector = new Float64Array(HASHING_DIMENSIONS);
  const tokens = words(text);
  tokens.forEach((word, i) => {
    add(vector, word, 1);
    if (i > 0) add(vector, `${tokens[i - 1]} ${word}`, 0.5);
  });
  const norm = Math.hypot(...vector);
  return Array.from(vector, (v) => (norm ? v / norm : 0));
}

/** Cosine similarity of two L2-normalised vectors (their dot product). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] ?? 0) * (b[i] ?? 0);
  return dot;
}
