import type MiniSearch from 'minisearch';
import type { SearchResult } from 'minisearch';
import { commitChange, orConflict, updateItem } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { ApiError, conflict } from '#shared/http/errors.ts';
import { logger } from '#shared/runtime/logger.ts';
import { keywordEntriesOf } from './keyword-rebuild.ts';
import { deleteObject, getObject, putObject } from './objects.ts';
import { committedKeywordObject, kbKey, keywordObjectKey, previousKeywordObject, type BaseRecord } from './records.ts';

/**
 * The keyword (BM25) index of a base: one MiniSearch index per base (docs/decisions/knowledge.md,
 * "Keyword index"), stored in S3 as JSON, one object per write attempt, named on the base item with
 * its generation. A rewrite stores its own object and moves the base from generation g to g+1 under
 * a condition, retrying on a concurrent rewrite, so two documents indexed at once never lose each
 * other's entries and a loser never removes what a winner committed. A function keeps the index it
 * loaded while the base names the same object (the base item is read on every retrieve anyway).
 */
export interface KeywordEntry {
  id: string;
  text: string;
  documentId: string;
  position: number;
}

type Index = MiniSearch<KeywordEntry>;
type Pointer = Pick<BaseRecord, 'tenantId' | 'id' | 'keywordGeneration' | 'keywordObject' | 'keywordPrevious'>;

// A short English stop list: words that carry no meaning and only dilute BM25.
const STOP = new Set(
  'a an and are as at be but by for from has have i if in into is it its of on or that the their then there these they this to was were will with what which who how do does can you your we our'.split(
    ' ',
  ),
);

// MiniSearch's own separators (spaces, punctuation) and the marks code is written between
// (`maxAttempts`, a|b, x<=y), so a word is found whether or not it was quoted as code.
const SEPARATORS = /[\n\r\p{Z}\p{P}`^|<>=~]+/u;

const OPTIONS = {
  fields: ['text'],
  storeFields: ['documentId', 'position'],
  tokenize: (text: string) => text.split(SEPARATORS),
  processTerm: (term: string) => {
    const t = term.toLowerCase();
    return !t || STOP.has(t) ? null : t;
  },
};

let loaded: Promise<typeof import('minisearch').default> | undefined;
const miniSearch = () => (loaded ??= import('minisearch').then((m) => m.default));

const cache = new Map<string, { object: string; index: Index }>();

const emptyIndex = async (): Promise<Index> => new (await miniSearch())<KeywordEntry>(OPTIONS);

async function loadObject(key: string): Promise<Index | null> {
  const bytes = await getObject(key);
  if (!bytes) return null;
  return (await miniSearch()).loadJSON<KeywordEntry>(new TextDecoder().decode(bytes), OPTIONS);
}

/** A fresh index of every entry the base's chunks hold: what a base whose object is lost is repaired with. */
async function rebuild(base: Pointer): Promise<Index> {
  const index = await emptyIndex();
  index.addAll(await keywordEntriesOf(base));
  logger.warn('keyword index object missing: rebuilt from the chunks', { kbId: base.id, size: index.documentCount });
  return index;
}

/** The index the base names, or rebuilt from its chunks when that object is gone. */
async function currentIndex(base: Pointer): Promise<Index> {
  const object = committedKeywordObject(base);
  if (!object) return emptyIndex();
  return (await loadObject(object)) ?? rebuild(base);
}

/** How many times a reader follows a base that moved on while it loaded, before it rebuilds. */
const READ_LOOKS = 3;

/**
 * The base's index as its item names it (from the cache when current). A missing object is looked
 * up again on the base a bounded number of times (a rewrite may have replaced it meanwhile); when
 * the base still names an object that is gone, the index is rebuilt from the chunks, and kept as the
 * base's next generation where this function may write it.
 */
export async function keywordIndex(base: Pointer): Promise<Index> {
  let seen = base;
  for (let look = 1; ; look++) {
    const object = committedKeywordObject(seen);
    if (!object) return emptyIndex();
    const hit = cache.get(seen.id);
    if (hit?.object === object) return hit.index;
    const index = await loadObject(object);
    if (index) {
      cache.set(seen.id, { object, index });
      return index;
    }
    const now = await get<BaseRecord>(kbKey(seen.tenantId, seen.id), { consistent: true });
    if (!now) return emptyIndex();
    if (committedKeywordObject(now) !== object && look < READ_LOOKS) {
      seen = now;
      continue;
    }
    const rebuilt = await rebuild(now);
    await commitGeneration(now, rebuilt).catch((err) =>
      logger.warn('rebuilt keyword index not stored', { kbId: now.id, error: String(err) }),
    );
    return rebuilt;
  }
}

export const forgetKeywordIndex = (kbId: string) => cache.delete(kbId);

export interface KeywordHit {
  id: string;
  score: number;
  documentId: string;
  position: number;
}

/** Every chunk matching any query term, with its BM25 score, best first. */
export function searchKeyword(index: Index, query: string): KeywordHit[] {
  return index.search(query, { combineWith: 'OR', prefix: false, fuzzy: false }).map((r: SearchResult) => ({
    id: String(r.id),
    score: r.score,
    documentId: String(r.documentId),
    position: Number(r.position),
  }));
}

const isConflict = (err: unknown) => err instanceof ApiError && err.status === 409;

/**
 * Stores the index as the base's next generation under an object of its own: true when the base
 * moved to it, false when another rewrite won (its object stays, this one's is removed).
 */
async function commitGeneration(base: Pointer, index: Index): Promise<boolean> {
  const from = Number(base.keywordGeneration ?? 0);
  const object = keywordObjectKey(base.tenantId, base.id, from + 1, crypto.randomUUID());
  await putObject(object, JSON.stringify(index), 'application/json');
  try {
    await commitChange(
      [
        orConflict(
          updateItem(
            kbKey(base.tenantId, base.id),
            { keywordGeneration: from + 1, keywordObject: object, keywordPrevious: committedKeywordObject(base) },
            { condition: 'keywordGeneration = :from', values: { ':from': from } },
          ),
          conflict('The keyword index was rewritten meanwhile'),
        ),
      ],
      null,
    );
  } catch (err) {
    await deleteObject(object).catch(() => undefined);
    if (isConflict(err)) return false;
    throw err;
  }
  cache.set(base.id, { object, index });
  // Two generations back: a reader that read the base just before this rewrite still finds its object.
  const stale = previousKeywordObject(base);
  if (stale) await deleteObject(stale).catch(() => undefined);
  return true;
}

/** Attempts of one rewrite against concurrent ones; each lost attempt waits a little longer, at random. */
const REWRITE_ATTEMPTS = 20;

/** Adds and removes entries in a new generation of the base's index; false when the base is gone. */
export async function rewriteKeywordIndex(
  tenantId: string,
  kbId: string,
  change: { add?: KeywordEntry[]; remove?: string[] },
): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const base = await get<BaseRecord>(kbKey(tenantId, kbId), { consistent: true });
    if (!base) return false;
    const index = await currentIndex(base);
    const removable = (change.remove ?? []).filter((id) => index.has(id));
    if (removable.length) index.discardAll(removable);
    const fresh = (change.add ?? []).filter((e) => !index.has(e.id));
    if (fresh.length) index.addAll(fresh);
    if (await commitGeneration(base, index)) return true;
    if (attempt >= REWRITE_ATTEMPTS) throw conflict('The keyword index was rewritten meanwhile');
    await new Promise((r) => setTimeout(r, Math.random() * 25 * Math.min(attempt, 8)));
  }
}
