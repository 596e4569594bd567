import type { Principal } from '#shared/auth/access-token.ts';
import {
  commitChange,
  deleteItem,
  orConflict,
  putItem,
  updateItem,
  type Change,
  type Write,
} from '#shared/data/commit.ts';
import { keyId } from '#shared/data/keys.ts';
import { get, getMany } from '#shared/data/read.ts';
import { conflict, notFound, validationError } from '#shared/http/errors.ts';
import { logger } from '#shared/runtime/logger.ts';
import { variantOf } from './ab-split.ts';
import { NOT_ARCHIVED, readPrompt, writablePrompt } from './prompts.ts';
import {
  prompts,
  SMALL_SAMPLE,
  VARIANTS,
  type AbGuard,
  type AbTestRecord,
  type ConversationVariant,
  type PromptItem,
  type Variant,
  type VariantCounters,
  type VersionItem,
} from './records.ts';

const audit = (
  tenantId: string,
  actor: Principal | null,
  promptId: string,
  action: string,
  changes: Change['changes'],
) => ({
  tenantId,
  actor,
  entityType: 'PromptAbTest',
  entityId: promptId,
  action,
  changes,
});

/** Approving archives the version before: an approved version is the Active one, or an Archived one approved once. */
const wasApproved = (v: VersionItem & { approvedAt?: string | null }) =>
  v.status === 'Active' || (v.status === 'Archived' && !!v.approvedAt);

async function approvedVersion(tenantId: string, prompt: PromptItem, versionId: string, field: string) {
  const n = prompt.versionIndex?.[versionId];
  if (!n) throw validationError([{ path: `body.${field}`, message: 'Not a version of this prompt' }]);
  const v = await get<VersionItem & { approvedAt?: string | null }>(prompts.version(tenantId, prompt.id, Number(n)), {
    consistent: true,
  });
  if (!v) throw validationError([{ path: `body.${field}`, message: 'Not a version of this prompt' }]);
  if (!wasApproved(v)) throw conflict(`Version ${v.versionNumber} was never approved (it is ${v.status})`);
  return v;
}

/** Percentages as stored: DynamoDB keeps magnitudes down to 1e-130 only, and a share needs no more than this. */
const hundredths = (v: number) => Math.round(v * 100) / 100;

export interface AbTestInput {
  versionAId: string;
  versionBId: string;
  shareB: number;
  guard: AbGuard | null;
}

/**
 * Starts the prompt's A/B test, or changes the running one. The same two versions keep the test
 * (its id and counters; conversations already started keep their variant); other versions start a
 * new test with fresh counters. A change clears a tripped guard: the caller decided again.
 */
export async function putAbTest(tenantId: string, promptId: string, input: AbTestInput, actor: Principal) {
  if (input.versionAId === input.versionBId)
    throw validationError([{ path: 'body.versionBId', message: 'Version B must differ from version A' }]);
  const prompt = await writablePrompt(tenantId, promptId);
  await approvedVersion(tenantId, prompt, input.versionAId, 'versionAId');
  await approvedVersion(tenantId, prompt, input.versionBId, 'versionBId');
  const before = await get<AbTestRecord>(prompts.abTest(tenantId, promptId), { consistent: true });
  const same = before && before.versionAId === input.versionAId && before.versionBId === input.versionBId;
  const now = new Date().toISOString();
  const test: AbTestRecord = {
    tenantId,
    promptId,
    testId: same ? before.testId : crypto.randomUUID(),
    versionAId: input.versionAId,
    versionBId: input.versionBId,
    shareB: hundredths(input.shareB),
    guard: input.guard && { ...input.guard, margin: hundredths(input.guard.margin) },
    guardTrippedAt: null,
    startedAt: same ? before.startedAt : now,
    updatedAt: now,
  };
  await commitChange(
    [
      orConflict(
        putItem(
          { ...prompts.abTest(tenantId, promptId), ...test },
          before ? 'testId = :was' : 'attribute_not_exists(pk)',
          before ? { ':was': before.testId } : undefined,
        ),
        'The A/B test changed meanwhile; try again',
      ),
      orConflict(
        updateItem(
          prompts.key(tenantId, promptId),
          { abTestConfig: { variantA: true, variantB: true }, updatedAt: now },
          NOT_ARCHIVED,
        ),
        'The prompt was archived meanwhile',
      ),
    ],
    audit(tenantId, actor, promptId, before ? (same ? 'update' : 'restart') : 'start', {
      testId: test.testId,
      versionAId: test.versionAId,
      versionBId: test.versionBId,
      shareB: before && same ? { from: before.shareB, to: test.shareB } : test.shareB,
      guard: test.guard,
    }),
    { now },
  );
  return toAbTest(test, {});
}

/** Ends the test: new conversations get the agent's pinned version again; started ones keep theirs. */
export async function endAbTest(tenantId: string, promptId: string, actor: Principal) {
  await readPrompt(tenantId, promptId);
  const test = await get<AbTestRecord>(prompts.abTest(tenantId, promptId), { consistent: true });
  if (!test) throw notFound('A/B test');
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(
        deleteItem(prompts.abTest(tenantId, promptId), 'testId = :id', { ':id': test.testId }),
        'The A/B test changed meanwhile; try again',
      ),
      updateItem(prompts.key(tenantId, promptId), {
        abTestConfig: { variantA: false, variantB: false },
        updatedAt: now,
      }),
    ],
    audit(tenantId, actor, promptId, 'end', { testId: test.testId }),
    { now },
  );
}

const rate = (part: number, whole: number) => (whole ? Math.round((part / whole) * 10_000) / 100 : null);

function results(c: VariantCounters = {}) {
  const n = Number(c.conversations ?? 0);
  const closed = Number(c.closed ?? 0);
  const csatCount = Number(c.csatCount ?? 0);
  const tokens = Number(c.tokens ?? 0);
  return {
    conversations: n,
    closed,
    /** Of the conversations that ended, the share marked resolved (percent). */
    resolutionRate: rate(Number(c.resolved ?? 0), closed),
    /** Of the conversations started, the share handed to a person (percent). */
    escalationRate: rate(Number(c.escalated ?? 0), n),
    csat: csatCount ? Math.round((Number(c.csatSum ?? 0) / csatCount) * 100) / 100 : null,
    csatResponses: csatCount,
    tokens,
    tokensPerConversation: n ? Math.round(tokens / n) : null,
    note:
      n < SMALL_SAMPLE
        ? `Only ${n} conversation${n === 1 ? '' : 's'} (fewer than ${SMALL_SAMPLE}): rates may move a lot`
        : null,
  };
}

const toAbTest = (t: AbTestRecord, counters: Partial<Record<Variant, VariantCounters>>) => ({
  testId: t.testId,
  versionAId: t.versionAId,
  versionBId: t.versionBId,
  shareB: Number(t.shareB),
  guard: t.guard ? { margin: Number(t.guard.margin), minConversations: Number(t.guard.minConversations) } : null,
  guardTrippedAt: t.guardTrippedAt ?? null,
  startedAt: t.startedAt,
  updatedAt: t.updatedAt,
  results: { A: results(counters.A), B: results(counters.B) },
});

async function countersOf(t: AbTestRecord) {
  const ks = VARIANTS.map((v) => prompts.abResult(t.tenantId, t.promptId, t.testId, v));
  const found = await getMany<VariantCounters>(ks, { consistent: true });
  return { A: found.get(keyId(ks[0]!)), B: found.get(keyId(ks[1]!)) };
}

/** The running test and its per-variant results; null when none runs (the prompt itself must exist). */
export async function readAbTest(tenantId: string, promptId: string) {
  await readPrompt(tenantId, promptId);
  const test = await get<AbTestRecord>(prompts.abTest(tenantId, promptId), { consistent: true });
  return test ? toAbTest(test, await countersOf(test)) : null;
}

/** The variant a new conversation on the prompt gets, or null when no test runs (one GetItem). */
export async function variantForConversation(
  tenantId: string,
  promptId: string,
  conversationId: string,
): Promise<ConversationVariant | null> {
  const test = await get<AbTestRecord>(prompts.abTest(tenantId, promptId));
  if (!test) return null;
  const variant = variantOf(conversationId, Number(test.shareB));
  return {
    promptId,
    testId: test.testId,
    variant,
    promptVersionId: variant === 'B' ? test.versionBId : test.versionAId,
  };
}

/** The version the playground forces (409 when no test runs on the prompt). */
export async function forcedVariantVersion(tenantId: string, promptId: string, variant: Variant) {
  const test = await get<AbTestRecord>(prompts.abTest(tenantId, promptId), { consistent: true });
  if (!test) throw conflict("The agent's prompt has no A/B test running: no variant to force");
  return variant === 'B' ? test.versionBId : test.versionAId;
}

/** Counter moves of one conversation, added in the conversation's own write (no condition: never fails it). */
export const variantCounterWrite = (tenantId: string, v: ConversationVariant, add: VariantCounters): Write =>
  updateItem(
    prompts.abResult(tenantId, v.promptId, v.testId, v.variant),
    {},
    {
      add: Object.fromEntries(Object.entries(add).filter(([, n]) => n)) as Record<string, number>,
    },
  );

/**
 * The guarded rollout: once both variants have `minConversations`, B's escalation rate exceeding
 * A's by more than `margin` points sets shareB to 0 (audited, `guardTrippedAt` kept). Checked
 * after counters move; a failure here is logged and checked again at the next move.
 */
export async function checkGuard(tenantId: string, v: ConversationVariant) {
  try {
    const test = await get<AbTestRecord>(prompts.abTest(tenantId, v.promptId), { consistent: true });
    if (!test?.guard || test.testId !== v.testId || test.guardTrippedAt || Number(test.shareB) === 0) return;
    const counters = await countersOf(test);
    const a = results(counters.A);
    const b = results(counters.B);
    const min = Number(test.guard.minConversations);
    if (a.conversations < min || b.conversations < min) return;
    const gap = (b.escalationRate ?? 0) - (a.escalationRate ?? 0);
    if (gap <= Number(test.guard.margin)) return;
    const now = new Date().toISOString();
    await commitChange(
      [
        orConflict(
          updateItem(
            prompts.abTest(tenantId, v.promptId),
            { shareB: 0, guardTrippedAt: now, updatedAt: now },
            { condition: 'testId = :id AND guardTrippedAt = :null', values: { ':id': test.testId, ':null': null } },
          ),
          'already tripped',
        ),
      ],
      audit(tenantId, null, v.promptId, 'guardTripped', {
        testId: test.testId,
        shareB: { from: Number(test.shareB), to: 0 },
        escalationRate: { A: a.escalationRate, B: b.escalationRate },
        margin: Number(test.guard.margin),
      }),
      { now },
    );
  } catch (err) {
    logger.warn('A/B guard not checked', { promptId: v.promptId, error: err as Error });
  }
}
