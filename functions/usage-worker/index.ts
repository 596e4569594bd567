import { CALL_RECORDED } from '#areas/llm-gateway/messages.ts';
import { ingestRecords } from '#areas/llm-gateway/usage.ts';
import { handlesBatch } from '#shared/queue/messages.ts';
import { queueWorker } from '#shared/queue/worker.ts';

/**
 * The usage queue: model calls' records, a delivery's together in one ingestion (each counted once
 * by its request id, so no message is claimed); a failed ingestion retries the whole delivery.
 */
export const handler = queueWorker('usage', [
  handlesBatch(
    CALL_RECORDED,
    async (items) => {
      await ingestRecords(items.map((i) => i.payload));
      return [];
    },
    { countsOnce: true },
  ),
]);
