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
