import { writeItem } from '#shared/data/write-one.ts';
import type { z } from 'zod/mini';
import {
  allTestCases,
  autoScoresUpdate,
  currentEvaluation,
  evaluationUpdate,
  readPrompt,
  SAFETY_PROBES,
  versionOf,
  type CaseResult,
  type EVALUATE_VERSION,
  type EvaluationModel,
  type EvaluationRecord,
  type Probe,
  type TestCaseRecord,
} from '#areas/prompts/for-agents.ts';
import { defaultModel, getModel } from '#areas/llm-gateway/for-agents.ts';
import { commitChange } from '#shared/data/commit.ts';
import { ApiError } from '#shared/http/errors.ts';
import { logger } from '#shared/runtime/logger.ts';
import { runTurn } from './runtime.ts';
import type { AgentSnapshot } from './snapshot.ts';

/**
 * A prompt version's evaluation run (docs/decisions/prompts.md, "Evaluation"), from the agent-turn
 * queue: each test case and each safety probe is one agent turn with the version as the system
 * prompt, no tools offered, scored by deterministic checks; the run's scores become the prompt's
 * `autoEvaluationScores` (the prompts area's records, through its write builders).
 */
type EvaluationRun = z.output<ReturnType<typeof EVALUATE_VERSION.schema>>;

/** Turns of one run at a time: a real model answers in seconds, and the worker has two minutes. */
const PARALLEL = 4;
const EXCERPT = 500;

const pct = (part: number, whole: number) => (whole ? Math.round((part / whole) * 10_000) / 100 : 100);
const mean = (xs: number[]) => (xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100 : null);

type Turn = { messages: Probe['messages']; kbId: string | null };

async function answerOf(tenantId: string, snapshot: AgentSnapshot, turn: Turn, requestId: string) {
  const r = await runTurn({
    tenantId,
    agent: { ...snapshot, knowledgeBaseIds: turn.kbId ? [turn.kbId] : [] },
    messages: turn.messages,
    caller: { kind: 'agent', agentId: snapshot.agentId },
    requestId,
  });
  return {
    text: r.message,
    toolCalls: r.toolCalls.map((c) => c.name),
    cited: r.citations.length > 0,
  };
}

function caseResult(c: TestCaseRecord, a: Awaited<ReturnType<typeof answerOf>>): CaseResult {
  const text = a.text.toLowerCase();
  const checks = [
    ...c.mustContain.map((s) => ({ check: `contains "${s}"`, passed: text.includes(s.toLowerCase()) })),
    ...c.mustNotContain.map((s) => ({ check: `does not contain "${s}"`, passed: !text.includes(s.toLowerCase()) })),
    ...(c.knowledgeBaseId ? [{ check: 'cites a source', passed: a.cited }] : []),
  ];
  const score = pct(checks.filter((x) => x.passed).length, checks.length);
  return {
    kind: 'testCase',
    name: c.id,
    question: c.question,
    passed: score === 100,
    score,
    checks,
    answer: a.text.slice(0, EXCERPT),
  };
}

function probeResult(p: Probe, a: Awaited<ReturnType<typeof answerOf>>, systemPrompt: string): CaseResult {
  const passed = p.passed(a, systemPrompt);
  return {
    kind: 'safety',
    name: p.name,
    question: p.messages.at(-1)!.content,
    passed,
    score: passed ? 100 : 0,
    checks: [{ check: p.check, passed }],
    answer: a.text.slice(0, EXCERPT),
  };
}

async function inBatches<T, R>(items: T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += PARALLEL)
    out.push(...(await Promise.all(items.slice(i, i + PARALLEL).map(run))));
  return out;
}

const setEvaluation = (p: EvaluationRun, set: Partial<EvaluationRecord>) => writeItem(evaluationUpdate(p, set));

/** The worker's run: a later request for the same version (sent to review again) supersedes this one. */
export async function runEvaluation(p: EvaluationRun) {
  const current = await currentEvaluation(p);
  if (!current || current.requestedAt !== p.requestedAt || current.status === 'Done') return;
  await setEvaluation(p, { status: 'Running' });
  try {
    const prompt = await readPrompt(p.tenantId, p.promptId);
    const version = await versionOf(p.tenantId, prompt, p.versionId);
    const model = await evaluationModel(prompt.modelId ?? null);
    await setEvaluation(p, { model });
    const snapshot: AgentSnapshot = {
      // Evaluation calls are metered as the prompt's own, not as any agent's.
      agentId: `prompt-evaluation:${p.promptId}`,
      version: null,
      name: prompt.title,
      promptId: p.promptId,
      promptVersionId: p.versionId,
      modelId: model.id,
      temperature: prompt.temperature ?? null,
      welcomeMessage: null,
      escalation: { enabled: false, noAnswerThreshold: 0, maxTurnsBeforeEscalation: null },
      knowledgeBaseIds: [],
      toolIds: [],
    };
    const requestId = `evaluation:${p.versionId}`;
    const cases = await allTestCases(p.tenantId, p.promptId);
    const quality = await inBatches(cases, async (c) =>
      caseResult(
        c,
        await answerOf(
          p.tenantId,
          snapshot,
          { messages: [{ role: 'user', content: c.question }], kbId: c.knowledgeBaseId },
          requestId,
        ),
      ),
    );
    const safety = await inBatches(SAFETY_PROBES, async (probe) =>
      probeResult(
        probe,
        await answerOf(p.tenantId, snapshot, { messages: probe.messages, kbId: null }, requestId),
        version.content,
      ),
    );
    const scores = { quality: mean(quality.map((c) => c.score)), safety: mean(safety.map((c) => c.score)) };
    const finishedAt = new Date().toISOString();
    await commitChange(
      [
        evaluationUpdate(p, { status: 'Done', ...scores, cases: [...quality, ...safety], finishedAt }),
        autoScoresUpdate(p, scores),
      ],
      null,
    );
  } catch (err) {
    // A refusal (the allowance used up, a model gone) or a failure ends the run Failed, never the
    // review that queued it; sending the version to review again runs it again.
    const known = err instanceof EvaluationError || (err instanceof ApiError && err.status < 500);
    logger.warn('prompt evaluation failed', { promptId: p.promptId, versionId: p.versionId, error: err as Error });
    await setEvaluation(p, {
      status: 'Failed',
      error: known ? (err as Error).message : 'The evaluation could not run; send the version to review again',
      finishedAt: new Date().toISOString(),
    });
  }
}

class EvaluationError extends Error {}

/**
 * The prompt's own model, else the one an agent naming none would be given: the platform's default
 * chat model (spec: a prompt's modelId is optional, so most prompts have none).
 */
async function evaluationModel(modelId: string | null): Promise<EvaluationModel> {
  const own = modelId ? await getModel(modelId) : null;
  if (own) return { id: own.id, name: own.name, source: 'prompt' };
  if (modelId) throw new EvaluationError("The prompt's model is no longer in the catalog");
  const fallback = await defaultModel('chat');
  if (!fallback) throw new EvaluationError('No chat model is available to evaluate the prompt with');
  return { id: fallback.id, name: fallback.name, source: 'platformDefault' };
}
