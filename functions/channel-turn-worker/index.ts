import { runQueuedTurn } from '#areas/connector/queued-turn.ts';
import { CHANNEL_TURN } from '#areas/connector/queue.ts';
import { runEvaluation } from '#areas/agents/prompt-evaluation.ts';
import { EVALUATE_VERSION } from '#areas/prompts/evaluation.ts';
import { handles } from '#shared/queue/messages.ts';
import { queueWorker } from '#shared/queue/worker.ts';

/**
 * Runs agent turns off the request path: a prompt version's evaluation (its cases and safety probes),
 * and a chat-channel message's agent turn: the person's conversation found or started, the turn run,
 * the answer queued on `channels`. A turn that fails for a passing reason is thrown, so SQS delivers
 * it again, in its person's order (the conversation's idempotency key keeps the message stored once).
 */
export const handler = queueWorker('turns', [
  handles(CHANNEL_TURN, runQueuedTurn),
  handles(EVALUATE_VERSION, runEvaluation),
]);
