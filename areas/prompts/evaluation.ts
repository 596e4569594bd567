import { writeItem } from '#shared/data/write-one.ts';
import * as z from 'zod/mini';
import { putItem, updateItem } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { notFound } from '#shared/http/errors.ts';
import { enqueue, messageKind } from '#shared/queue/messages.ts';
import { readPrompt, versionOf } from './prompts.ts';
import { prompts, type EvaluationRecord, type EvaluationScores } from './records.ts';

/**
 * A version's evaluation (docs/decisions/prompts.md, "Evaluation"): sending it to review queues
 * one run on the agent-turn queue (its worker has the runtime's grants: models, retrieval). The run
 * is the agents area's (areas/agents/prompt-evaluation.ts: each test case and safety probe one agent
 * turn); the evaluation record and the prompt's `autoEvaluationScores` are the prompts area's, which
 * the run writes through the builders below.
 */
export const EVALUATE_VERSION = messageKind(
  'turns',
  'prompt.evaluate',
  () => z.object({ tenantId: z.string(), promptId: z.string(), versionId: z.string(), requestedAt: z.string() }),
  // Evaluations need no order among themselves: each version is its own group.
  { group: (p) => p.versionId },
);

export async function queueEvaluation(tenantId: string, promptId: string, versionId: string) {
  const requestedAt = new Date().toISOString();
  const pending: EvaluationRecord = {
    tenantId,
    promptId,
    versionId,
    status: 'Pending',
    quality: null,
    safety: null,
    cases: [],
    error: null,
    requestedAt,
    finishedAt: null,
  };
  await writeItem(putItem({ ...prompts.evaluation(tenantId, promptId, versionId), ...pending }));
  await enqueue(EVALUATE_VERSION, { tenantId, promptId, versionId, requestedAt });
}

export async function readEvaluation(tenantId: string, promptId: string, versionId: string) {
  const prompt = await readPrompt(tenantId, promptId);
  await versionOf(tenantId, prompt, versionId);
  const e = await get<EvaluationRecord>(prompts.evaluation(tenantId, promptId, versionId), { consistent: true });
  if (!e) throw notFound('Evaluation');
  const { status, quality, safety, cases, error, requestedAt, finishedAt } = e;
  return { versionId, status, quality, safety, cases, error, model: e.model ?? null, requestedAt, finishedAt };
}

type EvaluationRef = { tenantId: string; promptId: string; versionId: string };

/** The evaluation record as it is now (the run checks it is still the one requested). */
export const currentEvaluation = (p: EvaluationRef) =>
  get<EvaluationRecord>(prompts.evaluation(p.tenantId, p.promptId, p.versionId), { consistent: true });

/** A change of the evaluation record (its status, scores, cases). */
export const evaluationUpdate = (p: EvaluationRef, set: Partial<EvaluationRecord>) =>
  updateItem(prompts.evaluation(p.tenantId, p.promptId, p.versionId), set);

/** The prompt shows the scores of its last evaluated version. */
export const autoScoresUpdate = (p: EvaluationRef, scores: EvaluationScores) =>
  updateItem(prompts.key(p.tenantId, p.promptId), { autoEvaluationScores: scores, evaluatedVersionId: p.versionId });
