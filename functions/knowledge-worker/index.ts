import { indexDocument } from '#areas/knowledge/indexing.ts';
import { INDEX_DOCUMENT, PURGE_BASE, PURGE_DOCUMENT } from '#areas/knowledge/messages.ts';
import { purgeBase, purgeDocumentData } from '#areas/knowledge/purge.ts';
import { handles } from '#shared/queue/messages.ts';
import { queueWorker } from '#shared/queue/worker.ts';

/** The indexing queue: documents indexed, deleted documents and bases cleaned up, each message once. */
export const handler = queueWorker('indexing', [
  handles(INDEX_DOCUMENT, indexDocument),
  handles(PURGE_DOCUMENT, (ref) => purgeDocumentData(ref)),
  handles(PURGE_BASE, purgeBase),
]);
