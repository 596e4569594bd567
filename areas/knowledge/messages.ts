import * as z from 'zod/mini';
import { messageKind } from '#shared/queue/messages.ts';

/** The indexing queue's message kinds (functions/knowledge-worker). */
const documentRef = () => z.object({ tenantId: z.string(), kbId: z.string(), documentId: z.string() });

/** Parse, chunk, embed and index one uploaded document. */
export const INDEX_DOCUMENT = messageKind('indexing', 'knowledge.index', documentRef);
/** Remove a deleted document's chunks, vectors, keyword entries and original. */
export const PURGE_DOCUMENT = messageKind('indexing', 'knowledge.purge-document', documentRef);
/** Remove everything a deleted base held. */
export const PURGE_BASE = messageKind('indexing', 'knowledge.purge-base', () =>
  z.object({ tenantId: z.string(), kbId: z.string() }),
);

const sourceRef = () => z.object({ tenantId: z.string(), kbId: z.string(), sourceId: z.string() });
/** One step of a source's sync: reads pages until its time is up, then queues the next step. */
export const SYNC_SOURCE = messageKind('indexing', 'knowledge.sync-source', () =>
  z.object({ tenantId: z.string(), kbId: z.string(), sourceId: z.string(), syncId: z.string() }),
);
/** Index a source's page, then swap it in for the version it replaces. */
export const INDEX_PAGE = messageKind('indexing', 'knowledge.index-page', () =>
  z.object({ tenantId: z.string(), kbId: z.string(), documentId: z.string(), sourceId: z.string(), url: z.string() }),
);
/** Remove a deleted source's pages and their documents. */
export const PURGE_SOURCE = messageKind('indexing', 'knowledge.purge-source', sourceRef);
/** A content site's published content changed: the sources reading it sync. */
export const SITE_CHANGED = messageKind('indexing', 'knowledge.site-changed', () =>
  z.object({ tenantId: z.string(), siteId: z.string() }),
);
