import { deleteAll } from '#shared/data/batch.ts';
import { keyOf } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { config } from '#shared/platform/config.ts';
import { indexDocument } from '../indexing.ts';
import { purgeBase } from '../purge.ts';
import { kbKey } from '../records.ts';
import { pagesOf, removePage, settleVersion } from './pages.ts';
import { pageList, siteSourceKey, sourceKey, sourceList, type SourceRecord } from './source-records.ts';
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

const itemsOf = (pk: string) =>
  queryItems<{ pk: string; sk: string } & Partial<SourceRecord>>({
    TableName: config.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': pk },
  });

/**
 * A deleted base's purge, and its sources' records with it (their documents went with the base's):
 * the sources, their counter and site links, and the pages, so no schedule of a gone base stays due.
 */
export async function purgeBaseWithSources(ref: { tenantId: string; kbId: string }) {
  await purgeBase(ref);
  if (await get(kbKey(ref.tenantId, ref.kbId), { consistent: true })) return;
  const sources = await itemsOf(sourceList(ref.tenantId, ref.kbId));
  const links = sources.flatMap((s) =>
    s.settings?.siteId && s.id ? [siteSourceKey(ref.tenantId, s.settings.siteId, ref.kbId, s.id)] : [],
  );
  const pages = await itemsOf(pageList(ref.tenantId, ref.kbId));
  await deleteAll([...links, ...pages.map(keyOf), ...sources.map(keyOf)]);
}
