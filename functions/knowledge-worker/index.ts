import { tenantAgents } from '#areas/agents/directory.ts';
import { unbindDeletedBase } from '#areas/agents/unbind-base.ts';
import { BASE_DELETED, CHUNKS_CHANGED } from '#areas/knowledge/events.ts';
import { indexDocumentBatch } from '#areas/knowledge/indexing.ts';
import {
  INDEX_DOCUMENT,
  INDEX_PAGE,
  PURGE_BASE,
  PURGE_DOCUMENT,
  PURGE_SOURCE,
  SITE_CHANGED,
  SYNC_SOURCE,
} from '#areas/knowledge/messages.ts';
import { syncSiteSources } from '#areas/knowledge/sources/site-sync.ts';
import { runSyncStep } from '#areas/knowledge/sources/sync.ts';
import { indexPage, purgeBaseWithSources, purgeSource } from '#areas/knowledge/sources/worker.ts';
import { purgeDocumentData } from '#areas/knowledge/purge.ts';
import { refreshAfterChunksChanged } from '#areas/tools/kb-status.ts';
import { TENANT_AGENTS } from '#areas/tools/queries.ts';
import { on } from '#shared/data/events.ts';
import { answer } from '#shared/data/queries.ts';
import { handles, handlesBatch } from '#shared/queue/messages.ts';
import { queueWorker } from '#shared/queue/worker.ts';

/**
 * The indexing queue: documents indexed (those of one delivery together), deleted documents and bases cleaned up, sources synced
 * (their pages indexed and swapped in, deleted sources' pages removed), each message once.
 * An indexed document moves its tools' kbStatus; a purged base leaves the agents that named it.
 */
export const handler = queueWorker(
  'indexing',
  [
    handlesBatch(INDEX_DOCUMENT, indexDocumentBatch),
    handles(PURGE_DOCUMENT, (ref) => purgeDocumentData(ref)),
    handles(PURGE_BASE, purgeBaseWithSources),
    handles(SYNC_SOURCE, runSyncStep),
    handles(INDEX_PAGE, indexPage),
    handles(PURGE_SOURCE, purgeSource),
    handles(SITE_CHANGED, syncSiteSources),
  ],
  {
    wiring: [
      on(CHUNKS_CHANGED, refreshAfterChunksChanged),
      on(BASE_DELETED, unbindDeletedBase),
      answer(TENANT_AGENTS, tenantAgents),
    ],
  },
);
