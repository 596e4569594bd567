import { get } from '#shared/data/read.ts';
import { indexDocument } from '../indexing.ts';
import { pagesOf, removePage, settleVersion } from './pages.ts';
import { sourceKey, type SourceRecord } from './records.ts';
import { askToStop } from './sync-state.ts';

/** The indexing queue's work for sources (functions/knowledge-worker wires these). */
const REFUSED = 'Embedding was refused';

/**
 * A page's new version indexed, then swapped in for the one it replaces. A refused embedding (the
 * month's token allowance used up) stops the source's running sync with that reason; the pages it
 * did not reach, and this one, are read again by the next sync.
 */
export async function indexPage(ref: {
  tenantId: string;
  kbId: string;
  documentId: string;
  sourceId: string;
  url: string;
}) {
  const out = await indexDocument(ref);
  const settled = await settleVersion(ref);
  if (settled.status === 'Failed' && settled.error?.startsWith(REFUSED)) {
    const source = await get<SourceRecord>(sourceKey(ref.tenantId, ref.kbId, ref.sourceId), { consistent: true });
    if (source?.syncStatus === 'Running' && source.syncId)
      await askToStop(source, source.syncId, `The sync stopped: ${settled.error}. It resumes with the next sync`);
  }
  return out;
}

/** A deleted source's pages and their documents out of the base. */
export async function purgeSource(ref: { tenantId: string; kbId: string; sourceId: string }) {
  for (const page of await pagesOf({ tenantId: ref.tenantId, kbId: ref.kbId, id: ref.sourceId }))
    await removePage(page);
}
