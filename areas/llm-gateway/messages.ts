import * as z from 'zod/mini';
import { messageKind } from '#shared/queue/messages.ts';
import { MAX_RECEIVE_COUNT } from '#shared/queue/redrive.ts';
import { WORKERS } from '#shared/routes/groups.ts';

/** The usage queue's message (functions/usage-worker): one model call's record (usage.ts). */
export const CALL_RECORDED = messageKind('usage', 'llm.call-recorded', () =>
  z.object({
    tenantId: z.string(),
    caller: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('key'), keyId: z.string() }),
      z.object({ kind: z.literal('user'), userId: z.string() }),
      z.object({ kind: z.literal('agent'), agentId: z.string() }),
    ]),
    requestId: z.string(),
    model: z.string(),
    promptTokens: z.number(),
    completionTokens: z.number(),
    costNano: z.number(),
    latencyMs: z.number(),
    isError: z.boolean(),
    at: z.string(),
    leases: z.optional(
      z.array(
        z.object({
          tenantId: z.string(),
          id: z.string(),
          field: z.enum(['usedTokens', 'usedNano']),
          used: z.number(),
          expiresAt: z.number(),
        }),
      ),
    ),
  }),
);

/**
 * The latest a queued record lands after it was sent: every receive the queue allows, each after a
 * failed one's visibility timeout, plus the batching window. A lease's expiry waits this long past
 * its last call, so the sweep never settles a lease before its calls' records are in.
 */
const worker = WORKERS['usage-worker'];
export const RECORD_LANDS_WITHIN_MS =
  (MAX_RECEIVE_COUNT * worker.visibilitySeconds + worker.batchingWindowSeconds) * 1000;
