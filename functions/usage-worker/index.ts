import { CALL_RECORDED } from '#areas/llm-gateway/messages.ts';
import { ingestBatch } from '#areas/llm-gateway/usage.ts';
import { handlesBatch } from '#shared/queue/messages.ts';
import { queueWorker } from '#shared/queue/worker.ts';

/**
 * The usage queue: model calls' records, a delivery's together in one ingestion (each counted once
 * by its request id, so no message is claimed); when that fails, each record on its own, and only
 * those that fail alone are retried.
 */
export const handler = queueWorker('usage', [
  handlesBatch(
    CALL_RECORDED,
    async (items) => {
      const failed = new Set(await ingestBatch(items.map((i) => i.payload)));
      return items.filter((i) => failed.has(i.payload.requestId)).map((i) => i.messageId);
    },
    { countsOnce: true },
  ),
]);
