import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/** SciFact as BEIR ships it (bench/data/scifact/README.md): abstracts, training claims, which abstracts each cites. */
export interface Abstract {
  id: string;
  title: string;
  text: string;
}

export interface Claim {
  id: string;
  text: string;
  relevant: string[];
}

const DATA = new URL('./data/scifact/', import.meta.url);

export function loadCorpus(): Abstract[] {
  return gunzipSync(readFileSync(new URL('corpus.jsonl.gz', DATA)))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Abstract);
}

export function loadClaims(): Claim[] {
  const train = JSON.parse(readFileSync(new URL('train.json', DATA), 'utf8')) as {
    queries: Record<string, string>;
    qrels: Record<string, string[]>;
  };
  return Object.entries(train.queries)
    .filter(([id]) => train.qrels[id]?.length)
    .map(([id, text]) => ({ id, text, relevant: train.qrels[id]! }));
}

/** A stable pseudo-random order (FNV-1a of the id): samples are the same on every run and machine. */
function hash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
const shuffled = <T extends { id: string }>(list: T[]) =>
  [...list].sort((a, b) => hash(a.id) - hash(b.id) || (a.id < b.id ? -1 : 1));

export interface Sample {
  abstracts: Abstract[];
  claims: Claim[];
}

/**
 * At most `docs` abstracts and `queries` claims, the same every run: claims taken in a fixed
 * pseudo-random order while their cited abstracts still fit, then the sample filled with other
 * abstracts (the distractors) in the same kind of order. Every claim's cited abstracts are in the sample.
 */
export function sampleOf(corpus: Abstract[], claims: Claim[], docs: number, queries: number): Sample {
  const byId = new Map(corpus.map((a) => [a.id, a]));
  const chosen: Claim[] = [];
  const needed = new Set<string>();
  for (const claim of shuffled(claims)) {
    if (chosen.length >= queries) break;
    if (!claim.relevant.every((id) => byId.has(id))) continue;
    const extra = claim.relevant.filter((id) => !needed.has(id));
    if (needed.size + extra.length > docs) continue;
    for (const id of extra) needed.add(id);
    chosen.push(claim);
  }
  const abstracts = [...needed].map((id) => byId.get(id)!);
  for (const a of shuffled(corpus)) {
    if (abstracts.length >= docs) break;
    if (!needed.has(a.id)) abstracts.push(a);
  }
  return { abstracts: shuffled(abstracts), claims: chosen.sort((a, b) => Number(a.id) - Number(b.id)) };
}

/** nDCG@k with binary relevance over a ranked list of document ids (each counted once). */
export function ndcgAt(k: number, ranked: string[], relevant: Set<string>): number {
  let dcg = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i++) if (relevant.has(ranked[i]!)) dcg += 1 / Math.log2(i + 2);
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal ? dcg / ideal : 0;
}

export function recallAt(k: number, ranked: string[], relevant: Set<string>): number {
  const found = ranked.slice(0, k).filter((id) => relevant.has(id)).length;
  return relevant.size ? found / relevant.size : 0;
}

/** Chunks best first into documents best first: a document ranks where its best chunk does. */
export function documentsOf(chunkDocumentIds: string[]): string[] {
  return [...new Set(chunkDocumentIds)];
}
