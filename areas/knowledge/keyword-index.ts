import type MiniSearch from 'minisearch';
import type { SearchResult } from 'minisearch';
import { commitChange, orConflict, updateItem } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { conflict } from '#shared/http/errors.ts';
import { deleteObject, getObject, putObject } from './objects.ts';
import { kbKey, keywordObjectKey, type BaseRecord } from './records.ts';

/**
 * The keyword (BM25) index of a base: one MiniSearch index per base (docs/decisions/knowledge.md, "Keyword index"), stored in
 * S3 as JSON under a generation number. A rewrite stores generation g+1 and moves the base's
 * `keywordGeneration` from g to g+1 under a condition, retrying on a concurrent rewrite, so two
 * documents indexed at once never lose each other's entries. A function keeps the index it loaded
 * while the base's generation says it is current (the base item is read on every retrieve anyway).
 */
export interface KeywordEntry {
  id: string;
  text: string;
  documentId: string;
  position: number;
}

// A short English stop list: words that carry no meaning and only dilute BM25.
const STOP = new Set(
  'a an and are as at be but by for from has have i if in into is it its of on or that the their then there these they this to was were will with what which who how do does can you your we our'.split(
    ' ',
  ),
);

const OPTIONS = {
  fields: ['text'],
  storeFields: ['documentId', 'position'],
  processTerm: (term: string) => {
    const t = term.toLowerCase();
    return STOP.has(t) ? null : t;
  },
};

let loaded: Promise<typeof import('minisearch').default> | undefined;
const miniSearch = () => (loaded ??= import('minisearch').then((m) => m.default));

const cache = new Map<string, { generation: number; index: MiniSearch<KeywordEntry> }>();

async function loadGeneration(
  tenantId: string,
  kbId: string,
  generation: number,
): Promise<MiniSearch<KeywordEntry> | null> {
  const MS = await miniSearch();
  if (!generation) return new MS<KeywordEntry>(OPTIONS);
  const bytes = await getObject(keywordObjectKey(tenantId, kbId, generation));
  return bytes ? MS.loadJSON<KeywordEntry>(new TextDecoder().decode(bytes), OPTIONS) : null;
}

/** The base's index at the generation its item names (from the cache when current). */
export async function keywordIndex(base: Pick<BaseRecord, 'tenantId' | 'id' | 'keywordGeneration'>) {
  const generation = Number(base.keywordGeneration ?? 0);
  const hit = cache.get(base.id);
  if (hit && hit.generation === generation) return hit.index;
  const index = await loadGeneration(base.tenantId, base.id, generation);
  if (!index) {
    // A rewrite replaced that generation meanwhile: read where the base points now.
    const now = await get<BaseRecord>(kbKey(base.tenantId, base.id), { consistent: true });
    if (!now) throw conflict('The knowledge base was deleted meanwhile');
    return keywordIndex(now);
  }
  cache.set(base.id, { generation, index });
  return index;
}

export const forgetKeywordIndex = (kbId: string) => cache.delete(kbId);

export interface KeywordHit {
  id: string;
  score: number;
  documentId: string;
  position: number;
}

/** Every chunk matching any query term, with its BM25 score, best first. */
export function searchKeyword(index: MiniSearch<KeywordEntry>, query: string): KeywordHit[] {
  return index.search(query, { combineWith: 'OR', prefix: false, fuzzy: false }).map((r: SearchResult) => ({
    id: String(r.id),
    score: r.score,
    documentId: String(r.documentId),
    position: Number(r.position),
  }));
}

/** Adds and removes entries in a new generation of the base's index; false when the base is gone. */
export async function rewriteKeywordIndex(
  tenantId: string,
  kbId: string,
  change: { add?: KeywordEntry[]; remove?: string[] },
): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const base = await get<BaseRecord>(kbKey(tenantId, kbId), { consistent: true });
    if (!base) return false;
    const from = Number(base.keywordGeneration ?? 0);
    const current = await loadGeneration(tenantId, kbId, from);
    if (!current) {
      if (attempt >= 8) throw new Error(`Keyword index generation ${from} of base ${kbId} is missing`);
      continue;
    }
    const removable = (change.remove ?? []).filter((id) => current.has(id));
    if (removable.length) current.discardAll(removable);
    const fresh = (change.add ?? []).filter((e) => !current.has(e.id));
    if (fresh.length) current.addAll(fresh);
    const to = from + 1;
    await putObject(keywordObjectKey(tenantId, kbId, to), JSON.stringify(current), 'application/json');
    try {
      await commitChange(
        [
          orConflict(
            updateItem(
              kbKey(tenantId, kbId),
              { keywordGeneration: to },
              {
                condition: 'keywordGeneration = :from',
                values: { ':from': from },
              },
            ),
            conflict('The keyword index was rewritten meanwhile'),
          ),
        ],
        null,
      );
    } catch (err) {
      await deleteObject(keywordObjectKey(tenantId, kbId, to)).catch(() => undefined);
      if (attempt >= 8) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
      continue;
    }
    cache.set(kbId, { generation: to, index: current });
    // The generation before the previous one: a reader still loading g (read a moment ago) finds it.
    if (from > 1) await deleteObject(keywordObjectKey(tenantId, kbId, from - 1)).catch(() => undefined);
    return true;
  }
}
