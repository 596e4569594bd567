import type { Principal } from '#shared/auth/access-token.ts';
import { keys } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { config } from '#shared/platform/config.ts';
import { promptStatus, type VersionStatus } from './lifecycle.ts';

/**
 * The prompts area's records. A prompt is a tenant item in `{t}#PROMPT`; its versions sit beside
 * it in the same partition under `{promptId}#V#{inverted number}`, so one Query on `{promptId}`
 * reads the prompt and then its versions newest first. Archived prompts leave the gsi1 list;
 * gsi2 lists every prompt.
 */
export const prompts = {
  key: (tenantId: string, id: string) => keys.tenantItem(tenantId, 'PROMPT', id),
  /** Prompts not archived, newest first (gsi1). */
  live: (tenantId: string) => keys.tenantCollection(tenantId, 'PROMPT'),
  /** Every prompt, archived ones too (gsi2). */
  all: (tenantId: string) => keys.withArchived(keys.tenantCollection(tenantId, 'PROMPT')),
  /** A version; the number is stored inverted (999999 - n) so newer sorts first. */
  version: (tenantId: string, promptId: string, versionNumber: number) => ({
    pk: keys.tenantCollection(tenantId, 'PROMPT'),
    sk: `${promptId}#V#${String(999_999 - versionNumber).padStart(6, '0')}`,
  }),
  /** Sort-key bounds of a prompt and all its versions. */
  withVersions: (promptId: string) => ({ from: promptId, to: `${promptId}#V#~` }),
  /** A test case: its own partition under the prompt, listed oldest first by its time-ordered id. */
  testCase: (tenantId: string, promptId: string, id: string) =>
    keys.childItem(tenantId, 'PROMPT', promptId, 'TEST_CASE', id),
  testCases: (tenantId: string, promptId: string) => keys.childCollection(tenantId, 'PROMPT', promptId, 'TEST_CASE'),
  /** A version's evaluation (one per version: the latest run replaces the one before). */
  evaluation: (tenantId: string, promptId: string, versionId: string) =>
    keys.childItem(tenantId, 'PROMPT', promptId, 'EVALUATION', versionId),
  /** The prompt's A/B test (at most one runs; ending it deletes this item). */
  abTest: (tenantId: string, promptId: string) => keys.childItem(tenantId, 'PROMPT', promptId, 'AB_TEST', 'current'),
  /**
   * One variant's counters of one test, keyed by the test's id: a conversation's counts land on the
   * test it started under, never on a later one, and need no condition (so they ride in the
   * conversation's own write and are counted exactly once).
   */
  abResult: (tenantId: string, promptId: string, testId: string, variant: Variant) =>
    keys.childItem(tenantId, 'PROMPT', promptId, 'AB_RESULT', `${testId}#${variant}`),
};

/** Below this many conversations a variant's rates are shown with a note: they may move a lot. */
export const SMALL_SAMPLE = 30;

export const VARIANTS = ['A', 'B'] as const;
export type Variant = (typeof VARIANTS)[number];

export interface AbGuard {
  /** Percentage points by which B's escalation rate may exceed A's. */
  margin: number;
  minConversations: number;
}

export interface AbTestRecord {
  tenantId: string;
  promptId: string;
  testId: string;
  versionAId: string;
  versionBId: string;
  shareB: number;
  guard: AbGuard | null;
  guardTrippedAt: string | null;
  startedAt: string;
  updatedAt: string;
}

/** What a conversation keeps of the test it started under: its variant, decided once. */
export interface ConversationVariant {
  promptId: string;
  testId: string;
  variant: Variant;
  promptVersionId: string;
}

export interface VariantCounters {
  conversations?: number;
  escalated?: number;
  closed?: number;
  resolved?: number;
  csatSum?: number;
  csatCount?: number;
  tokens?: number;
}

export interface TestCaseRecord {
  id: string;
  tenantId: string;
  promptId: string;
  question: string;
  mustContain: string[];
  mustNotContain: string[];
  knowledgeBaseId: string | null;
  createdAt: string;
}

export const toTestCase = (c: TestCaseRecord) => ({
  id: c.id,
  question: c.question,
  mustContain: c.mustContain,
  mustNotContain: c.mustNotContain,
  knowledgeBaseId: c.knowledgeBaseId,
  createdAt: c.createdAt,
});

export const EVALUATION_STATUSES = ['Pending', 'Running', 'Done', 'Failed'] as const;
export type EvaluationStatus = (typeof EVALUATION_STATUSES)[number];

/** One check of one case: what was asked of the answer, and whether it held. */
export interface CaseResult {
  kind: 'testCase' | 'safety';
  name: string;
  question: string;
  passed: boolean;
  score: number;
  checks: { check: string; passed: boolean }[];
  answer: string;
}

export interface EvaluationRecord {
  tenantId: string;
  promptId: string;
  versionId: string;
  status: EvaluationStatus;
  quality: number | null;
  safety: number | null;
  cases: CaseResult[];
  error: string | null;
  /** The model the run answered with, and whether it is the prompt's own or the platform's default. */
  model?: EvaluationModel | null;
  requestedAt: string;
  finishedAt: string | null;
}

export const EVALUATION_MODEL_SOURCES = ['prompt', 'platformDefault'] as const;
export type EvaluationModel = { id: string; name: string; source: (typeof EVALUATION_MODEL_SOURCES)[number] };

export type AbTestConfig = { variantA: boolean; variantB: boolean };
export type EvaluationScores = { quality: number | null; safety: number | null };

export type PromptItem = {
  pk: string;
  sk: string;
  id: string;
  tenantId: string;
  title: string;
  content: string;
  placeholders: string[];
  modelId: string | null;
  temperature: number;
  tags: string[];
  abTestConfig: AbTestConfig;
  autoEvaluationScores: EvaluationScores;
  activeVersionId: string | null;
  activeVersionNumber: number | null;
  inReviewCount: number;
  versionCount: number;
  /** Version id -> number, so a version is found by id with one more GetItem. */
  versionIndex: Record<string, number>;
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
};

export type VersionItem = {
  pk: string;
  sk: string;
  id: string;
  promptId: string;
  tenantId: string;
  versionNumber: number;
  content: string;
  placeholders: string[];
  status: VersionStatus;
  changedBy: string;
  versionNote: string | null;
  createdAt: string;
};

export const promptItem = (tenantId: string, p: Omit<PromptItem, 'pk' | 'sk' | 'tenantId'>) => ({
  ...prompts.key(tenantId, p.id),
  ...keys.newestFirst(prompts.live(tenantId), p.createdAt, p.id),
  gsi2pk: prompts.all(tenantId),
  gsi2sk: `${p.createdAt}#${p.id}`,
  ...p,
  tenantId,
});

const actorName = (p: Pick<Principal, 'email' | 'userId'>) => p.email ?? p.userId;

export function versionItem(
  tenantId: string,
  promptId: string,
  n: number,
  from: { content: string; placeholders: string[] },
  actor: Principal,
  note: string | null,
  now: string,
): VersionItem {
  const id = crypto.randomUUID();
  return {
    ...prompts.version(tenantId, promptId, n),
    id,
    promptId,
    versionNumber: n,
    content: from.content,
    placeholders: from.placeholders,
    status: 'Draft',
    changedBy: actorName(actor),
    versionNote: note,
    createdAt: now,
    tenantId,
  };
}

export const toVersion = (i: VersionItem) => ({
  id: i.id,
  versionNumber: String(i.versionNumber),
  content: i.content,
  placeholders: i.placeholders ?? [],
  status: i.status,
  changedBy: i.changedBy,
  versionNote: i.versionNote ?? null,
  createdAt: i.createdAt,
});

export const toListItem = (i: PromptItem) => ({
  id: i.id,
  title: i.title,
  modelId: i.modelId ?? null,
  temperature: Number(i.temperature),
  lifecycleStatus: promptStatus({
    archivedAt: i.archivedAt,
    activeVersionId: i.activeVersionId,
    inReviewCount: Number(i.inReviewCount ?? 0),
  }),
  tags: i.tags ?? [],
  activeVersionId: i.activeVersionId ?? null,
  versionCount: Number(i.versionCount ?? 0),
  createdAt: i.createdAt,
  updatedAt: i.updatedAt,
});

export const toDetail = (i: PromptItem, versions: VersionItem[]) => ({
  ...toListItem(i),
  content: i.content,
  placeholders: i.placeholders ?? [],
  abTestConfig: i.abTestConfig ?? { variantA: false, variantB: false },
  autoEvaluationScores: i.autoEvaluationScores ?? { quality: null, safety: null },
  versions: versions.map(toVersion),
});

/** The prompt and its newest `versions` versions in one consistent Query; undefined when no prompt has the id. */
export async function promptWithVersions(tenantId: string, id: string, versions: number) {
  const bounds = prompts.withVersions(id);
  const items = await queryItems<PromptItem | VersionItem>(
    {
      TableName: config.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': prompts.live(tenantId), ':from': bounds.from, ':to': bounds.to },
      ConsistentRead: true,
    },
    versions + 1,
  );
  const [first, ...rest] = items;
  if (first?.sk !== id) return undefined;
  return { prompt: first as PromptItem, versions: rest as VersionItem[] };
}
