import { get } from '#shared/data/read.ts';
import { publishedSiteContent } from '#areas/content/for-knowledge.ts';
import { hashOf } from './extract.ts';
import { markSeen, newPage, pagesOf, readPage, recordVersion, removePage, settlePending } from './pages.ts';
import { emptyProgress, siteSourceList, sourceKey, type SourceRecord } from './source-records.ts';
import { endSync, requestSync, resyncIfAsked } from './sync-state.ts';
import { queryItems } from '#shared/data/query.ts';
import { config } from '#shared/platform/config.ts';
import { tenantLimits } from '#areas/identity/for-knowledge.ts';
import { sourceLimits } from './source-vocabulary.ts';

/**
 * A `site` source's sync: the tenant's own content site read through the content area's port (no
 * HTTP), each published page and post in each locale a page of the base. The site's own word is
 * final: a page unpublished or deleted leaves at once (no grace), and a change that only the site's
 * chrome would show costs nothing, as the content hash is taken of what the page holds.
 */
export async function runSiteSync(source: SourceRecord, syncId: string) {
  const content = await publishedSiteContent(source.tenantId, source.settings.siteId ?? '');
  if (!content) {
    const ended = await endSync(source, syncId, 'Failed', {
      error: 'The content site no longer exists or is no longer this tenant’s',
    });
    return { status: ended?.syncStatus ?? 'superseded' };
  }
  const limits = sourceLimits((await tenantLimits(source.tenantId)).planType);
  const maxPages = Math.min(source.settings.maxPages ?? limits.pagesPerSource, limits.pagesPerSource);
  const progress = emptyProgress();
  const read = content.slice(0, maxPages);
  let stop: string | null = null;
  for (const item of read) {
    progress.pagesSeen++;
    const settled = await settlePending((await readPage(source, item.url)) ?? newPage(source, item.url));
    const page = settled.page;
    const hash = hashOf(item.html);
    if (settled.busy || (page.documentId && page.contentHash === hash)) {
      progress.unchanged++;
      await markSeen(page, syncId);
      continue;
    }
    progress.changed++;
    const bytes = Buffer.from(item.html);
    const version = { title: item.title.slice(0, 300), contentType: 'text/html', bytes, hash };
    await recordVersion(source, page, { ...version, etag: null, lastModified: null, lastmod: null }, syncId);
    stop =
      (await get<SourceRecord>(sourceKey(source.tenantId, source.kbId, source.id), { consistent: true }))?.stopReason ??
      null;
    if (stop) break;
  }
  let kept = 0;
  for (const p of await pagesOf(source)) {
    if (p.lastSeenSyncId !== syncId && !stop && read.length === content.length) {
      await removePage(p);
      progress.removed++;
    } else kept++;
  }
  const ended = await endSync(source, syncId, stop ? 'Stopped' : 'Completed', {
    progress,
    error: stop,
    pageCount: kept,
  });
  if (ended) await resyncIfAsked(ended);
  return { status: ended?.syncStatus ?? 'superseded', progress };
}

/** The content area's event: every source reading the site syncs (one Query of the site's links). */
export async function syncSiteSources(e: { tenantId: string; siteId: string }) {
  const links = await queryItems<{ kbId: string; sourceId: string }>({
    TableName: config.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': siteSourceList(e.tenantId, e.siteId) },
  });
  for (const link of links) {
    const source = await get<SourceRecord>(sourceKey(e.tenantId, link.kbId, link.sourceId), { consistent: true });
    if (source) await requestSync(source, null);
  }
}
