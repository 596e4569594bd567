import { countTokens, decodeTokens, encodeTokens } from '#areas/llm-gateway/for-knowledge.ts';

/**
 * Token-sized chunks that break on paragraph and sentence boundaries (docs/decisions/knowledge.md,
 * "Chunking"): the text is cut into sentences (a paragraph break ends one too); sentences are packed
 * greedily until the next would pass `chunkSize` tokens; the next chunk starts again with the last
 * whole sentences of the previous one that fit in `overlap` tokens. Only a sentence longer than a
 * whole chunk is cut inside, at token boundaries (with `overlap` tokens repeated).
 */
export interface Chunk {
  text: string;
  tokenCount: number;
}

interface Unit {
  text: string;
  tokens: number;
  /** Starts a paragraph: joined with a blank line instead of a space. */
  paragraph: boolean;
}

const SENTENCE_END = /(?<=[.!?。！？])["')\]]*\s+(?=\S)/u;

export function sentencesOf(text: string): { text: string; paragraph: boolean }[] {
  const out: { text: string; paragraph: boolean }[] = [];
  for (const para of text.replace(/\r\n?/g, '\n').split(/\n\s*\n/)) {
    const clean = para.replace(/[ \t]*\n[ \t]*/g, '\n').trim();
    if (!clean) continue;
    const sentences = clean
      .split(SENTENCE_END)
      .map((s) => s.trim())
      .filter(Boolean);
    for (const [i, s] of sentences.entries()) out.push({ text: s, paragraph: i === 0 });
  }
  return out;
}

const join = (units: Unit[]) =>
  units.map((u, i) => (i === 0 ? u.text : `${u.paragraph ? '\n\n' : ' '}${u.text}`)).join('');

/** A sentence longer than a chunk, cut into chunk-sized token windows (overlapping by `overlap`). */
async function splitLong(unit: Unit, size: number, overlap: number): Promise<Unit[]> {
  const tokens = await encodeTokens(unit.text);
  const step = Math.max(1, size - overlap);
  const parts: Unit[] = [];
  for (let start = 0; start < tokens.length; start += step) {
    const slice = tokens.slice(start, start + size);
    parts.push({
      text: (await decodeTokens(slice)).trim(),
      tokens: slice.length,
      paragraph: start === 0 && unit.paragraph,
    });
    if (start + size >= tokens.length) break;
  }
  return parts.filter((p) => p.text);
}

export async function chunkText(text: string, size: number, overlap: number): Promise<Chunk[]> {
  const units: Unit[] = [];
  for (const s of sentencesOf(text)) units.push({ ...s, tokens: await countTokens(s.text) });
  const chunks: Unit[][] = [];
  let current: Unit[] = [];
  let used = 0;
  const close = () => {
    if (!current.length) return;
    chunks.push(current);
    // Carry the last whole sentences that fit in the overlap.
    const carried: Unit[] = [];
    let carriedTokens = 0;
    for (let i = current.length - 1; i > 0; i--) {
      if (carriedTokens + current[i]!.tokens > overlap) break;
      carried.unshift(current[i]!);
      carriedTokens += current[i]!.tokens;
    }
    current = carried;
    used = carriedTokens;
  };
  for (const unit of units) {
    if (unit.tokens > size) {
      close();
      current = [];
      used = 0;
      for (const part of await splitLong(unit, size, overlap)) chunks.push([part]);
      continue;
    }
    // A separator costs about one token.
    if (used + unit.tokens + (current.length ? 1 : 0) > size) {
      close();
      // The carried overlap leaves no room for this sentence: start clean.
      if (used + unit.tokens + 1 > size) {
        current = [];
        used = 0;
      }
    }
    current.push(unit);
    used += unit.tokens + (current.length > 1 ? 1 : 0);
  }
  // What remains is only carried overlap when nothing new was added after the last close.
  if (current.length && !(chunks.length && current.every((u) => chunks.at(-1)!.includes(u)))) chunks.push(current);
  const out: Chunk[] = [];
  for (const units of chunks) {
    const body = join(units);
    out.push({ text: body, tokenCount: await countTokens(body) });
  }
  return out;
}
