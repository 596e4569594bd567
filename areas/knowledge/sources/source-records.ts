import { createHash } from 'node:crypto';
import { keys, type Key } from '#shared/data/keys.ts';
import type { SourceType, SyncEvery, SyncStatus } from './source-vocabulary.ts';
import { sourcesDueEntry as dueEntry, sourcesDueIndex as dueIndex } from '../records.ts';

/**
 * A base's sources and the pages they brought in:
 * - a source is `{t}#KB#{kbId}#SOURCE` / sourceId, listed newest first on gsi1; while it syncs, or
 *   while it has a schedule, it also sits on gsi2 `PLATFORM#KB_SOURCES` by the time it is due (its
 *   sync's deadline, else its next sync), so the scheduler finds both with one Query;
 * - a page is `{t}#KB#{kbId}#PAGE` / `{sourceId}#{hash of its url}`: one Query on the sort key's
 *   prefix lists a source's pages for the removal of the ones that went;
 * - a site source is linked from `{t}#KB#{siteId}#SITE_SOURCE` / `{kbId}#{sourceId}`.
 */
export const sourceList = (tenantId: string, kbId: string) => keys.childCollection(tenantId, 'KB', kbId, 'SOURCE');
export const sourceKey = (tenantId: string, kbId: string, sourceId: string): Key =>
  keys.childItem(tenantId, 'KB', kbId, 'SOURCE', sourceId);
export const pageList = (tenantId: string, kbId: string) => keys.childCollection(tenantId, 'KB', kbId, 'PAGE');
export const urlHash = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 32);
export const pageKey = (tenantId: string, kbId: string, sourceId: string, url: string): Key =>
  keys.childItem(tenantId, 'KB', kbId, 'PAGE', `${sourceId}#${urlHash(url)}`);

/** A site source's link from its content site, so a change of the site finds its sources with one Query. */
export const siteSourceList = (tenantId: string, siteId: string) =>
  keys.childCollection(tenantId, 'KB', siteId, 'SITE_SOURCE');
export const siteSourceKey = (tenantId: string, siteId: string, kbId: string, sourceId: string): Key =>
  keys.childItem(tenantId, 'KB', siteId, 'SITE_SOURCE', `${kbId}#${sourceId}`);

export { dueEntry, dueIndex };

/** What a source is told to read; each type uses its own fields. */
export interface SourceSettings {
  /** web: where the crawl starts (same host as the first unless sameHostOnly is false). */
  startUrls?: string[];
  /** web: a page is read only when its path matches include (when set) and not exclude (globs, `*`). */
  include?: string | null;
  exclude?: string | null;
  maxDepth?: number;
  sameHostOnly?: boolean;
  /** sitemap: a sitemap or a sitemap index (gzip too). */
  sitemapUrl?: string;
  /** site: one of the tenant's content sites. */
  siteId?: string;
  /** Pages read at most (the plan's pagesPerSource bounds it). */
  maxPages?: number;
}

export interface SyncProgress {
  pagesSeen: number;
  changed: number;
  unchanged: number;
  removed: number;
  failed: number;
  failures: { url: string; reason: string }[];
}

export const emptyProgress = (): SyncProgress => ({
  pagesSeen: 0,
  changed: 0,
  unchanged: 0,
  removed: 0,
  failed: 0,
  failures: [],
});

export interface SourceRecord {
  id: string;
  tenantId: string;
  kbId: string;
  type: SourceType;
  name: string;
  settings: SourceSettings;
  syncEvery: SyncEvery;
  /** Whose allowance the pages' embeddings are counted against: the user who created the source. */
  createdBy: string;
  syncStatus: SyncStatus;
  /** The sync running or last run. */
  syncId: string | null;
  syncStartedAt: string | null;
  /** A running sync past it ends Failed (the stuck-document rule: Processing's deadline, renewed by each step). */
  syncDeadline: string | null;
  lastSyncAt: string | null;
  /** Why the last sync stopped or failed. */
  syncError: string | null;
  /** Set while a sync runs when it must stop (the token allowance used up): its next step stops with it. */
  stopReason?: string | null;
  progress: SyncProgress;
  nextSyncAt: string | null;
  /** Pages the source holds in the base. */
  pageCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface PageRecord {
  tenantId: string;
  kbId: string;
  sourceId: string;
  url: string;
  /** The document retrieval shows for it, and what it was made of. */
  documentId: string | null;
  contentHash: string | null;
  etag: string | null;
  lastModified: string | null;
  /** sitemap: the lastmod the live document was read at. */
  lastmod: string | null;
  /** A new version being indexed: it replaces documentId once Indexed (swap on success). */
  pendingDocumentId: string | null;
  pendingHash: string | null;
  pendingEtag: string | null;
  pendingLastModified: string | null;
  pendingLastmod: string | null;
  /** Syncs in a row that did not find it (404, 410, dropped from the sitemap): at 2 it is removed. */
  misses: number;
  lastSeenSyncId: string | null;
  updatedAt: string;
}

export const sourceItem = (s: SourceRecord) => ({
  ...sourceKey(s.tenantId, s.kbId, s.id),
  ...keys.newestFirst(sourceList(s.tenantId, s.kbId), s.createdAt, s.id),
  ...dueOf(s),
  ...s,
});

/** The source's gsi2 entry: by its sync's deadline while it runs, else by its next scheduled sync. */
export const dueOf = (
  s: Pick<SourceRecord, 'tenantId' | 'kbId' | 'id' | 'syncStatus' | 'syncDeadline' | 'nextSyncAt'>,
): { gsi2pk: string; gsi2sk: string } | Record<string, never> => {
  const at = s.syncStatus === 'Running' ? s.syncDeadline : s.nextSyncAt;
  return at ? dueEntry(at, s) : {};
};

export const pageItem = (p: PageRecord) => ({ ...pageKey(p.tenantId, p.kbId, p.sourceId, p.url), ...p });

export const toSource = (s: SourceRecord) => ({
  id: s.id,
  kbId: s.kbId,
  type: s.type,
  name: s.name,
  settings: s.settings,
  syncEvery: s.syncEvery,
  syncStatus: s.syncStatus,
  syncStartedAt: s.syncStartedAt ?? null,
  lastSyncAt: s.lastSyncAt ?? null,
  syncError: s.syncError ?? null,
  progress: { ...emptyProgress(), ...s.progress },
  nextSyncAt: s.nextSyncAt ?? null,
  pageCount: Math.max(0, Number(s.pageCount ?? 0)),
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});

/** Where a sync keeps what it has still to read between its steps (under the base's prefix, so a base's purge takes it). */
export const syncStateKey = (tenantId: string, kbId: string, sourceId: string) =>
  `knowledge/${tenantId}/${kbId}/sources/${sourceId}/sync.json`;
