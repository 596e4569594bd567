import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, orConflict, putNew, updateItem, type Change } from '#shared/data/commit.ts';
import { getOr404 } from '#shared/data/read.ts';
import { conflict, notFound, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { modelReferenceRefusal } from '#areas/llm-gateway/for-prompts.ts';
import { limitReached } from './errors.ts';
import { MAX_VERSIONS } from './lifecycle.ts';
import { parsePlaceholders } from './placeholders.ts';
import {
  promptItem,
  prompts,
  promptWithVersions,
  toDetail,
  toListItem,
  toVersion,
  versionItem,
  type PromptItem,
  type VersionItem,
} from './records.ts';

/** Versions shown in the prompt detail (newest first); the versions list pages through all. */
const DETAIL_VERSIONS = 50;

export interface PromptInput {
  title?: string;
  content?: string;
  modelId?: string | null;
  temperature?: number;
  tags?: string[];
}

const change =
  (tenantId: string, actor: Principal, entityType: 'Prompt' | 'PromptVersion', entityId: string) =>
  (action: string, changes: Change['changes']): Change => ({
    tenantId,
    actor,
    entityType,
    entityId,
    action,
    changes,
  });

/**
 * Numbers as stored: DynamoDB keeps magnitudes down to 1e-130 only, and a temperature or score
 * needs no more than a few decimals.
 */
const roundTo = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;
function storedNumbers<T extends PromptInput>(input: T): T {
  return {
    ...input,
    ...(input.temperature === undefined ? {} : { temperature: roundTo(input.temperature, 3) }),
  };
}

/** A prompt's model is a chat model of the gateway's catalog (null: the agent's or the default). */
async function checkModel(modelId: string | null | undefined) {
  if (!modelId) return;
  const refusal = await modelReferenceRefusal(modelId, 'chat');
  if (refusal) throw validationError([{ path: 'body.modelId', message: refusal }]);
}

/** The placeholder names of a content, or 400 listing every malformed placeholder. */
function placeholdersOf(content: string, path = 'body.content'): string[] {
  const parsed = parsePlaceholders(content);
  if (!parsed.ok) throw validationError(parsed.problems.map((p) => ({ path, message: p.message })));
  return parsed.names;
}

async function found(tenantId: string, id: string, versions: number) {
  const out = await promptWithVersions(tenantId, id, versions);
  if (!out) throw notFound('Prompt');
  return out;
}

export async function promptDetail(tenantId: string, id: string) {
  const { prompt, versions } = await found(tenantId, id, DETAIL_VERSIONS);
  return toDetail(prompt, versions);
}

export async function listVersions(tenantId: string, id: string, q: { page: number; pageSize: number }) {
  const start = (q.page - 1) * q.pageSize;
  const { prompt, versions } = await found(tenantId, id, start + q.pageSize);
  return toPage(versions.slice(start).map(toVersion), Number(prompt.versionCount ?? 0), q.page, q.pageSize);
}

export async function listPrompts(
  tenantId: string,
  q: { page: number; pageSize: number; includeArchived?: 'true' | 'false' },
) {
  const all = q.includeArchived === 'true';
  const { items, totalCount } = await listNewestFirst<PromptItem>(
    all ? prompts.all(tenantId) : prompts.live(tenantId),
    {
      page: q.page,
      pageSize: q.pageSize,
      index: all ? 'gsi2' : 'gsi1',
    },
  );
  return toPage(items.map(toListItem), totalCount, q.page, q.pageSize);
}

export async function createPrompt(
  tenantId: string,
  given: PromptInput & { title: string; content: string },
  actor: Principal,
) {
  const input = storedNumbers(given);
  const placeholders = placeholdersOf(input.content);
  await checkModel(input.modelId);
  const now = new Date().toISOString();
  const id = crypto.randomUUID();
  const first = versionItem(tenantId, id, 1, { content: input.content, placeholders }, actor, null, now);
  const prompt = promptItem(tenantId, {
    id,
    title: input.title,
    content: input.content,
    placeholders,
    modelId: input.modelId ?? null,
    temperature: input.temperature ?? 0.7,
    tags: input.tags ?? [],
    // Read-only: both true while an A/B test runs (ab-test.ts).
    abTestConfig: { variantA: false, variantB: false },
    // Computed by the platform from the latest evaluated version (evaluation.ts), never written by a client.
    autoEvaluationScores: { quality: null, safety: null },
    activeVersionId: null,
    activeVersionNumber: null,
    inReviewCount: 0,
    versionCount: 1,
    versionIndex: { [first.id]: 1 },
    archivedAt: null,
    createdAt: now,
    updatedAt: now,
  });
  await commitChange(
    [putNew(prompt), putNew(first), bumpCounter(prompts.live(tenantId), 1), bumpCounter(prompts.all(tenantId), 1)],
    change(tenantId, actor, 'Prompt', id)('create', { title: input.title, versionId: first.id }),
    { now },
  );
  return toDetail(prompt, [first]);
}

/** The prompt, read consistently, or 404. */
export const readPrompt = (tenantId: string, id: string) =>
  getOr404<PromptItem>(prompts.key(tenantId, id), 'Prompt', { consistent: true });

/** The prompt for a change: an archived prompt is read-only (409). */
export async function writablePrompt(tenantId: string, id: string) {
  const prompt = await readPrompt(tenantId, id);
  if (prompt.archivedAt) throw conflict('An archived prompt is read-only');
  return prompt;
}

/** The condition of every prompt change: the prompt exists and is not archived. */
export const NOT_ARCHIVED = { condition: 'attribute_exists(pk) AND archivedAt = :null', values: { ':null': null } };

export async function updatePrompt(tenantId: string, id: string, given: PromptInput, actor: Principal) {
  await writablePrompt(tenantId, id);
  const input = storedNumbers(given);
  await checkModel(input.modelId);
  const set: Record<string, unknown> = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  if (input.content !== undefined) set.placeholders = placeholdersOf(input.content);
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(
        updateItem(prompts.key(tenantId, id), { ...set, updatedAt: now }, NOT_ARCHIVED),
        'The prompt was archived meanwhile',
      ),
    ],
    change(
      tenantId,
      actor,
      'Prompt',
      id,
    )('update', {
      ...set,
      content: input.content === undefined ? undefined : `${Buffer.byteLength(input.content)} bytes`,
    }),
    { now },
  );
  return promptDetail(tenantId, id);
}

/** Soft delete: the prompt leaves the default list and becomes read-only; a second DELETE changes nothing. */
export async function archivePrompt(tenantId: string, id: string, actor: Principal) {
  const prompt = await readPrompt(tenantId, id);
  if (prompt.archivedAt) return;
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(
        updateItem(
          prompts.key(tenantId, id),
          { archivedAt: now, updatedAt: now },
          { ...NOT_ARCHIVED, remove: ['gsi1pk', 'gsi1sk'] },
        ),
        'The prompt was archived meanwhile',
      ),
      bumpCounter(prompts.live(tenantId), -1),
    ],
    change(
      tenantId,
      actor,
      'Prompt',
      id,
    )('archive', {
      lifecycleStatus: { from: toListItem(prompt).lifecycleStatus, to: 'Archived' },
    }),
    { now },
  );
}

export async function newVersion(tenantId: string, id: string, note: string | null | undefined, actor: Principal) {
  const prompt = await writablePrompt(tenantId, id);
  const n = Number(prompt.versionCount) + 1;
  if (n > MAX_VERSIONS) throw limitReached();
  const now = new Date().toISOString();
  const v = versionItem(
    tenantId,
    id,
    n,
    { content: prompt.content, placeholders: prompt.placeholders ?? [] },
    actor,
    note || null,
    now,
  );
  await commitChange(
    [
      putNew(v),
      orConflict(
        updateItem(
          prompts.key(tenantId, id),
          { versionCount: n, [`versionIndex.${v.id}`]: n, updatedAt: now },
          {
            condition: `${NOT_ARCHIVED.condition} AND versionCount = :was`,
            values: { ...NOT_ARCHIVED.values, ':was': n - 1 },
          },
        ),
        'The prompt changed meanwhile; try again',
      ),
    ],
    change(tenantId, actor, 'PromptVersion', v.id)('create', { promptId: id, versionNumber: n }),
    { now },
  );
  return toVersion(v);
}

/** A version of the prompt by its id (through the prompt's version map), or 404. */
export async function versionOf(tenantId: string, prompt: PromptItem, versionId: string) {
  const n = prompt.versionIndex?.[versionId];
  if (!n) throw notFound('Prompt version');
  return getOr404<VersionItem>(prompts.version(tenantId, prompt.id, Number(n)), 'Prompt version', { consistent: true });
}
