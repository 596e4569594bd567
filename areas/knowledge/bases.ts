import type { Principal } from '#shared/auth/access-token.ts';
import { CURRENT_ANALYZER } from './keyword/terms.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, deleteItem, orConflict, putNew, updateItem, type Change } from '#shared/data/commit.ts';
import { emit } from '#shared/data/events.ts';
import { getOr404 } from '#shared/data/read.ts';
import { notFound, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { enqueue } from '#shared/queue/messages.ts';
import { logger } from '#shared/runtime/logger.ts';
import { planSlot } from '#areas/identity/for-knowledge.ts';
import { modelReferenceRefusal } from '#areas/llm-gateway/for-knowledge.ts';
import { knowledgeBaseFull, planLimitReached } from './errors.ts';
import { PURGE_BASE } from './messages.ts';
import { BASE_DELETED, CHUNKS_CHANGED } from './events.ts';
import { baseItem, kbKey, kbList, toBase, type BaseRecord, type BaseRerank } from './records.ts';
import { CHUNK_SIZE, DEFAULT_CHUNK_OVERLAP, maxChunksPerBase } from './vocabulary.ts';

const change = (
  tenantId: string,
  actor: Principal | null,
  entityId: string,
  action: string,
  changes: Change['changes'],
) => ({ tenantId, actor, entityType: 'KnowledgeBase', entityId, action, changes }) satisfies Change;

export const readBase = (tenantId: string, kbId: string, consistent = false) =>
  getOr404<BaseRecord>(kbKey(tenantId, kbId), 'Knowledge base', { consistent });

/** The base, refusing an upload once it holds its ceiling of chunks (checked before anything is stored). */
export async function readBaseWithRoom(tenantId: string, kbId: string) {
  const base = await readBase(tenantId, kbId);
  const chunks = Number(base.chunkCount ?? 0);
  if (chunks >= maxChunksPerBase()) throw knowledgeBaseFull(chunks, maxChunksPerBase());
  return base;
}

export async function getBase(tenantId: string, kbId: string) {
  return toBase(await readBase(tenantId, kbId));
}

export async function listBases(tenantId: string, q: { page: number; pageSize: number; search?: string }) {
  const { items, totalCount } = await listNewestFirst<BaseRecord>(kbList(tenantId), q);
  return toPage(items.map(toBase), totalCount, q.page, q.pageSize);
}

export interface BaseInput {
  name: string;
  description?: string | null;
  chunkSize?: number | null;
  chunkOverlap?: number | null;
  embeddingModelId?: string | null;
  excludeFlagged?: boolean;
  rerank?: BaseRerank | null;
}

/** A reranker must be an active rerank model of the catalog (400 naming the field otherwise). */
async function checkedRerank(rerank: BaseRerank | null | undefined) {
  if (!rerank) return;
  const refusal = await modelReferenceRefusal(rerank.modelId, 'rerank');
  if (refusal) throw validationError([{ path: 'body.rerank.modelId', message: refusal }]);
}

const sameRerank = (a: BaseRerank | null | undefined, b: BaseRerank | null | undefined) =>
  (a ?? null) === (b ?? null) || (!!a && !!b && a.modelId === b.modelId && Number(a.topN) === Number(b.topN));

export async function createBase(tenantId: string, input: BaseInput, actor: Principal) {
  const chunkSize = input.chunkSize ?? CHUNK_SIZE.default;
  const chunkOverlap = input.chunkOverlap ?? Math.min(DEFAULT_CHUNK_OVERLAP, Math.floor(chunkSize / 2));
  if (chunkOverlap > chunkSize / 2)
    throw validationError([{ path: 'body.chunkOverlap', message: 'At most half of chunkSize' }]);
  if (input.embeddingModelId) {
    const refusal = await modelReferenceRefusal(input.embeddingModelId, 'embedding');
    if (refusal) throw validationError([{ path: 'body.embeddingModelId', message: refusal }]);
  }
  await checkedRerank(input.rerank);
  const now = new Date().toISOString();
  const base: BaseRecord = {
    id: crypto.randomUUID(),
    tenantId,
    name: input.name,
    description: input.description || null,
    chunkSize,
    chunkOverlap,
    embeddingModelId: input.embeddingModelId ?? null,
    documentCount: 0,
    chunkCount: 0,
    excludeFlagged: input.excludeFlagged ?? false,
    rerank: input.rerank ?? null,
    keywordGeneration: 0,
    keywordTerms: 0,
    keywordAnalyzer: CURRENT_ANALYZER,
    searchText: input.name.toLowerCase(),
    createdAt: now,
    updatedAt: now,
  };
  await commitChange(
    [
      orConflict(planSlot(tenantId, 'knowledgeBases', 1), planLimitReached()),
      putNew(baseItem(base)),
      bumpCounter(kbList(tenantId), 1),
    ],
    change(tenantId, actor, base.id, 'create', { name: base.name, chunkSize, chunkOverlap }),
    { now },
  );
  return toBase(base);
}

export async function updateBase(
  tenantId: string,
  kbId: string,
  input: Pick<BaseInput, 'description' | 'excludeFlagged' | 'rerank'> & { name?: string },
  actor: Principal,
) {
  const base = await readBase(tenantId, kbId, true);
  const set: Record<string, unknown> = {};
  if (input.name !== undefined && input.name !== base.name) {
    set.name = input.name;
    set.searchText = input.name.toLowerCase();
  }
  if (input.description !== undefined && (input.description || null) !== base.description)
    set.description = input.description || null;
  if (input.excludeFlagged !== undefined && input.excludeFlagged !== (base.excludeFlagged ?? false))
    set.excludeFlagged = input.excludeFlagged;
  if (input.rerank !== undefined && !sameRerank(input.rerank, base.rerank)) {
    await checkedRerank(input.rerank);
    set.rerank = input.rerank;
  }
  if (!Object.keys(set).length) return toBase(base);
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(
        updateItem(kbKey(tenantId, kbId), { ...set, updatedAt: now }, { condition: 'attribute_exists(pk)' }),
        notFound('Knowledge base'),
      ),
    ],
    change(tenantId, actor, kbId, 'update', {
      name: set.name,
      description: set.description,
      excludeFlagged: set.excludeFlagged,
      rerank: set.rerank,
    }),
    { now },
  );
  return toBase({ ...base, ...set, updatedAt: now } as BaseRecord);
}

/**
 * The base item goes in the request, so every route and retrieve answers 404 for it at once, and
 * the agent drafts that name it lose it; the worker then removes its documents, chunks, vectors and
 * index objects (PURGE_BASE).
 */
export async function deleteBase(tenantId: string, kbId: string, actor: Principal) {
  const base = await readBase(tenantId, kbId, true);
  await commitChange(
    [
      orConflict(deleteItem(kbKey(tenantId, kbId), 'attribute_exists(pk)'), notFound('Knowledge base')),
      bumpCounter(kbList(tenantId), -1),
      planSlot(tenantId, 'knowledgeBases', -1),
    ],
    change(tenantId, actor, kbId, 'delete', { name: base.name, documentCount: base.documentCount }),
  );
  // The purge worker tells the agents again, so a failure here only delays it.
  await emit(BASE_DELETED, { tenantId, kbId, actor: { userId: actor.userId, email: actor.email } }).catch((err) =>
    logger.warn('agents not unbound from a deleted knowledge base', { kbId, errorName: (err as Error).name }),
  );
  if (Number(base.chunkCount ?? 0) > 0) await emit(CHUNKS_CHANGED, { tenantId, cause: 'knowledge base deleted' });
  await enqueue(PURGE_BASE, { tenantId, kbId });
}
