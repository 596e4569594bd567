import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst, putNew } from '#shared/data/collection.ts';
import { commitChange, readOr404, updateItem, type Item } from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { conflict, notFound, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { parsePlaceholders } from './placeholders.ts';
import { promptStatus, type VersionStatus } from './lifecycle.ts';

/** Versions per prompt: the prompt item maps each version id to its number. */
export const MAX_VERSIONS = 500;
/** Versions shown in the prompt detail (newest first); the versions list pages through all. */
const DETAIL_VERSIONS = 50;

export const prompts = {
  key: (t: string, id: string) => keys.tenantItem(t, 'PROMPT', id),
  /** Prompts not archived, newest first (gsi1). */
  live: (t: string) => keys.tenantCollection(t, 'PROMPT'),
  /** Every prompt, archived ones too (gsi2). */
  all: (t: string) => keys.withArchived(keys.tenantCollection(t, 'PROMPT')),
  version: (t: string, id: string, n: number) => keys.promptVersion(t, id, n),
};

export interface PromptInput {
  title?: string;
  content?: string;
  modelId?: string | null;
  temperature?: number;
  tags?: string[];
  abTestConfig?: { variantA: boolean; variantB: boolean };
  autoEvaluationScores?: { quality: number | null; safety: number | null };
}

/**
 * Numbers as stored: DynamoDB keeps magnitudes down to 1e-130 only, and a temperature or score
 * needs no more than a few decimals.
 */
const roundTo = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;
function storedNumbers(input: PromptInput): PromptInput {
  return {
    ...input,
    ...(input.temperature === undefined ? {} : { temperature: roundTo(input.temperature, 3) }),
    ...(input.autoEvaluationScores
      ? {
          autoEvaluationScores: {
            quality:
              input.autoEvaluationScores.quality === null ? null : roundTo(input.autoEvaluationScores.quality, 2),
            safety: input.autoEvaluationScores.safety === null ? null : roundTo(input.autoEvaluationScores.safety, 2),
          },
        }
      : {}),
  };
}

/** The placeholder names of a content, or 400 listing every malformed placeholder. */
export function placeholdersOf(content: string, path = 'body.content'): string[] {
  const parsed = parsePlaceholders(content);
  if (!parsed.ok) throw validationError(parsed.problems.map((p) => ({ path, message: p.message })));
  return parsed.names;
}

const toVersion = (i: Item) => ({
  id: i.id as string,
  versionNumber: String(i.versionNumber),
  content: i.content as string,
  placeholders: (i.placeholders as string[]) ?? [],
  status: i.status as VersionStatus,
  changedBy: i.changedBy as string,
  versionNote: (i.versionNote as string | null) ?? null,
  createdAt: i.createdAt as string,
});

const toListItem = (i: Item) => ({
  id: i.id as string,
  title: i.title as string,
  modelId: (i.modelId as string | null) ?? null,
  temperature: Number(i.temperature),
  lifecycleStatus: promptStatus({
    archivedAt: i.archivedAt as string | null,
    activeVersionId: i.activeVersionId as string | null,
    inReviewCount: Number(i.inReviewCount ?? 0),
  }),
  tags: (i.tags as string[]) ?? [],
  activeVersionId: (i.activeVersionId as string | null) ?? null,
  versionCount: Number(i.versionCount ?? 0),
  createdAt: i.createdAt as string,
  updatedAt: i.updatedAt as string,
});

const toDetail = (i: Item, versions: Item[]) => ({
  ...toListItem(i),
  content: i.content as string,
  placeholders: (i.placeholders as string[]) ?? [],
  abTestConfig: (i.abTestConfig as { variantA: boolean; variantB: boolean }) ?? { variantA: false, variantB: false },
  autoEvaluationScores: (i.autoEvaluationScores as { quality: number | null; safety: number | null }) ?? {
    quality: null,
    safety: null,
  },
  versions: versions.map(toVersion),
});

/**
 * The prompt and its newest versions in one Query: versions sort right after their prompt
 * (`{promptId}` < `{promptId}#V#…`), newest first.
 */
async function promptWithVersions(t: string, id: string, versions: number) {
  const items = await queryItems(
    {
      TableName: config.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': prompts.live(t), ':from': id, ':to': `${keys.promptVersionPrefix(id)}~` },
      ConsistentRead: true,
    },
    versions + 1,
  );
  if (items[0]?.sk !== id) throw notFound('Prompt');
  return { prompt: items[0], versions: items.slice(1) };
}

export async function promptDetail(t: string, id: string) {
  const { prompt, versions } = await promptWithVersions(t, id, DETAIL_VERSIONS);
  return toDetail(prompt, versions);
}

export async function listVersions(t: string, id: string, q: { page: number; pageSize: number }) {
  const start = (q.page - 1) * q.pageSize;
  const { prompt, versions } = await promptWithVersions(t, id, start + q.pageSize);
  return toPage(versions.slice(start).map(toVersion), Number(prompt.versionCount ?? 0), q.page, q.pageSize);
}

export async function listPrompts(
  t: string,
  q: { page: number; pageSize: number; includeArchived?: 'true' | 'false' },
) {
  const all = q.includeArchived === 'true';
  const { items, totalCount } = await listNewestFirst(all ? prompts.all(t) : prompts.live(t), {
    ...q,
    index: all ? 'gsi2' : 'gsi1',
  });
  return toPage(items.map(toListItem), totalCount, q.page, q.pageSize);
}

const actorName = (p: Principal) => p.email ?? p.userId;

function versionItem(
  t: string,
  promptId: string,
  n: number,
  content: string,
  placeholders: string[],
  actor: Principal,
  note: string | null,
  now: string,
) {
  const id = crypto.randomUUID();
  return {
    id,
    item: {
      ...prompts.version(t, promptId, n),
      id,
      promptId,
      versionNumber: n,
      content,
      placeholders,
      status: 'Draft',
      changedBy: actorName(actor),
      versionNote: note,
      createdAt: now,
      tenantId: t,
    },
  };
}

export async function createPrompt(
  t: string,
  given: PromptInput & { title: string; content: string },
  actor: Principal,
) {
  const input = { ...given, ...storedNumbers(given) };
  const placeholders = placeholdersOf(input.content);
  const now = new Date().toISOString();
  const id = crypto.randomUUID();
  const first = versionItem(t, id, 1, input.content, placeholders, actor, null, now);
  const prompt = {
    ...prompts.key(t, id),
    ...keys.newestFirst(prompts.live(t), now, id),
    gsi2pk: prompts.all(t),
    gsi2sk: `${now}#${id}`,
    id,
    tenantId: t,
    title: input.title,
    content: input.content,
    placeholders,
    modelId: input.modelId?.toLowerCase() ?? null,
    temperature: input.temperature ?? 0.7,
    tags: input.tags ?? [],
    abTestConfig: input.abTestConfig ?? { variantA: false, variantB: false },
    autoEvaluationScores: input.autoEvaluationScores ?? { quality: null, safety: null },
    activeVersionId: null,
    activeVersionNumber: null,
    inReviewCount: 0,
    versionCount: 1,
    versionIndex: { [first.id]: 1 },
    archivedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await commitChange(
    [putNew(prompt), putNew(first.item), bumpCounter(prompts.live(t), 1), bumpCounter(prompts.all(t), 1)],
    {
      tenantId: t,
      actor,
      entityType: 'Prompt',
      entityId: id,
      action: 'create',
      changes: { title: input.title, versionId: first.id },
    },
    now,
  );
  return promptDetail(t, id);
}

/** The prompt for a change: an archived prompt is read-only (409). */
async function writablePrompt(t: string, id: string) {
  const prompt = await readOr404(prompts.key(t, id), 'Prompt');
  if (prompt.archivedAt) throw conflict('An archived prompt is read-only');
  return prompt;
}
const NOT_ARCHIVED = 'attribute_exists(pk) AND archivedAt = :null';

export async function updatePrompt(t: string, id: string, given: PromptInput, actor: Principal) {
  await writablePrompt(t, id);
  const input = storedNumbers(given);
  const set: Record<string, unknown> = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  if (input.content !== undefined) set.placeholders = placeholdersOf(input.content);
  if (typeof set.modelId === 'string') set.modelId = set.modelId.toLowerCase();
  const now = new Date().toISOString();
  await commitChange(
    [
      updateItem(
        prompts.key(t, id),
        { ...set, updatedAt: now },
        { condition: NOT_ARCHIVED, values: { ':null': null } },
      ),
    ],
    {
      tenantId: t,
      actor,
      entityType: 'Prompt',
      entityId: id,
      action: 'update',
      changes: {
        ...set,
        content: input.content === undefined ? undefined : `${Buffer.byteLength(input.content)} bytes`,
      },
    },
    now,
    'The prompt was archived meanwhile',
  );
  return promptDetail(t, id);
}

/** Soft delete: the prompt leaves the default list and becomes read-only; a second DELETE changes nothing. */
export async function archivePrompt(t: string, id: string, actor: Principal) {
  const prompt = await readOr404(prompts.key(t, id), 'Prompt');
  if (prompt.archivedAt) return;
  const now = new Date().toISOString();
  await commitChange(
    [
      updateItem(
        prompts.key(t, id),
        { archivedAt: now, updatedAt: now },
        { remove: ['gsi1pk', 'gsi1sk'], condition: NOT_ARCHIVED, values: { ':null': null } },
      ),
      bumpCounter(prompts.live(t), -1),
    ],
    {
      tenantId: t,
      actor,
      entityType: 'Prompt',
      entityId: id,
      action: 'archive',
      changes: { lifecycleStatus: { from: toListItem(prompt).lifecycleStatus, to: 'Archived' } },
    },
    now,
    'The prompt was archived meanwhile',
  );
}

export async function newVersion(t: string, id: string, note: string | null | undefined, actor: Principal) {
  const prompt = await writablePrompt(t, id);
  const n = Number(prompt.versionCount) + 1;
  if (n > MAX_VERSIONS) throw conflict(`A prompt keeps at most ${MAX_VERSIONS} versions`);
  const now = new Date().toISOString();
  const v = versionItem(
    t,
    id,
    n,
    prompt.content as string,
    (prompt.placeholders as string[]) ?? [],
    actor,
    note || null,
    now,
  );
  await commitChange(
    [
      putNew(v.item),
      updateItem(
        prompts.key(t, id),
        { versionCount: n, [`versionIndex.${v.id}`]: n, updatedAt: now },
        { condition: `${NOT_ARCHIVED} AND versionCount = :was`, values: { ':null': null, ':was': n - 1 } },
      ),
    ],
    {
      tenantId: t,
      actor,
      entityType: 'PromptVersion',
      entityId: v.id,
      action: 'create',
      changes: { promptId: id, versionNumber: n },
    },
    now,
    'The prompt changed meanwhile; try again',
  );
  return toVersion(v.item);
}

/** A version of the prompt by its id (through the prompt's version map), or 404. */
export async function versionOf(t: string, prompt: Item, versionId: string) {
  const n = (prompt.versionIndex as Record<string, number> | undefined)?.[versionId.toLowerCase()];
  if (!n) throw notFound('Prompt version');
  return readOr404(prompts.version(t, prompt.id as string, Number(n)), 'Prompt version');
}

export { writablePrompt, NOT_ARCHIVED };
