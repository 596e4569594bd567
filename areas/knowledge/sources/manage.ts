import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, deleteItem, orConflict, putNew, updateItem, type Change } from '#shared/data/commit.ts';
import { getOr404 } from '#shared/data/read.ts';
import { conflict, notFound, validationError } from '#shared/http/errors.ts';
import { outboundUrl, TargetRefused } from '#shared/http/pinned-request.ts';
import { toPage } from '#shared/http/responses.ts';
import { enqueue } from '#shared/queue/messages.ts';
import { tenantLimits } from '#areas/identity/for-knowledge.ts';
import { readBase } from '../bases.ts';
import { sourceLimitReached } from '../errors.ts';
import { PURGE_SOURCE, SYNC_SOURCE } from '../messages.ts';
import { kbKey } from '../records.ts';
import { publishedSiteContent } from '#areas/content/for-knowledge.ts';
import {
  dueOf,
  emptyProgress,
  siteSourceKey,
  sourceItem,
  sourceKey,
  sourceList,
  toSource,
  type SourceRecord,
  type SourceSettings,
} from './source-records.ts';
import { failIfStuckSource, nextSyncOf, startSync } from './sync-state.ts';
import { sourceLimits, type SourceType, type SyncEvery } from './source-vocabulary.ts';

const change = (
  s: { tenantId: string; id: string },
  actor: Principal | null,
  action: string,
  changes: Change['changes'],
) => ({ tenantId: s.tenantId, actor, entityType: 'KnowledgeSource', entityId: s.id, action, changes }) satisfies Change;

const readSource = (tenantId: string, kbId: string, sourceId: string, consistent = false) =>
  getOr404<SourceRecord>(sourceKey(tenantId, kbId, sourceId), 'Source', { consistent });

/** A URL a source may be told to read: https (or loopback under the local switch), no credentials, no private address literal. */
async function checkUrl(raw: string, path: string) {
  try {
    const url = outboundUrl(raw);
    const { isAllowedTarget } = await import('#shared/http/address-guard.ts');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (/^[\d.]+$|:/.test(host) && !isAllowedTarget(host))
      throw new TargetRefused('A private or reserved address is not allowed');
  } catch (err) {
    if (!(err instanceof TargetRefused)) throw err;
    throw validationError([{ path, message: err.message }]);
  }
}

/** The settings a type uses, checked (its required field, its URLs, the plan's page limit); the others dropped. */
async function settingsFor(type: SourceType, s: SourceSettings, maxPagesAllowed: number): Promise<SourceSettings> {
  if (s.maxPages !== undefined && s.maxPages > maxPagesAllowed)
    throw validationError([
      { path: 'body.settings.maxPages', message: `The plan allows at most ${maxPagesAllowed} pages per source` },
    ]);
  const maxPages = s.maxPages ?? maxPagesAllowed;
  if (type === 'web') {
    if (!s.startUrls?.length)
      throw validationError([{ path: 'body.settings.startUrls', message: 'A web source needs its start URLs' }]);
    for (const [i, u] of s.startUrls.entries()) await checkUrl(u, `body.settings.startUrls.${i}`);
    return {
      startUrls: s.startUrls,
      include: s.include || null,
      exclude: s.exclude || null,
      maxDepth: s.maxDepth ?? 2,
      sameHostOnly: s.sameHostOnly ?? true,
      maxPages,
    };
  }
  if (type === 'site') {
    if (!s.siteId) throw validationError([{ path: 'body.settings.siteId', message: 'A site source needs its siteId' }]);
    return { siteId: s.siteId, maxPages };
  }
  if (!s.sitemapUrl)
    throw validationError([{ path: 'body.settings.sitemapUrl', message: 'A sitemap source needs its sitemapUrl' }]);
  await checkUrl(s.sitemapUrl, 'body.settings.sitemapUrl');
  return { sitemapUrl: s.sitemapUrl, maxPages };
}

export interface SourceInput {
  type: SourceType;
  name: string;
  settings: SourceSettings;
  syncEvery?: SyncEvery;
}

/** A source, counted on its base against the plan's sources per base in the same transaction. */
export async function createSource(tenantId: string, kbId: string, input: SourceInput, actor: Principal) {
  await readBase(tenantId, kbId);
  const limits = sourceLimits((await tenantLimits(tenantId)).planType);
  const settings = await settingsFor(input.type, input.settings, limits.pagesPerSource);
  if (settings.siteId && !(await publishedSiteContent(tenantId, settings.siteId)))
    throw validationError([{ path: 'body.settings.siteId', message: 'No content site of this tenant has this id' }]);
  const now = Date.now();
  const at = new Date(now).toISOString();
  const source: SourceRecord = {
    id: crypto.randomUUID(),
    tenantId,
    kbId,
    type: input.type,
    name: input.name,
    settings,
    syncEvery: input.syncEvery ?? 'off',
    createdBy: actor.userId,
    syncStatus: 'Idle',
    syncId: null,
    syncStartedAt: null,
    syncDeadline: null,
    lastSyncAt: null,
    syncError: null,
    progress: emptyProgress(),
    // A scheduled source syncs within the scheduler's next minute, then at its interval.
    nextSyncAt: input.syncEvery && input.syncEvery !== 'off' ? at : null,
    pageCount: 0,
    createdAt: at,
    updatedAt: at,
  };
  await commitChange(
    [
      orConflict(
        updateItem(
          kbKey(tenantId, kbId),
          {},
          {
            add: { sourceCount: 1 },
            condition: 'attribute_exists(pk) AND (attribute_not_exists(sourceCount) OR sourceCount < :max)',
            values: { ':max': limits.sourcesPerBase },
          },
        ),
        sourceLimitReached(limits.sourcesPerBase),
      ),
      putNew(sourceItem(source)),
      bumpCounter(sourceList(tenantId, kbId), 1),
      settings.siteId &&
        putNew({ ...siteSourceKey(tenantId, settings.siteId, kbId, source.id), kbId, sourceId: source.id }),
    ],
    change(source, actor, 'create', { kbId, type: source.type, name: source.name, settings }),
    { now: at },
  );
  return toSource(source);
}

/**
 * A page of the base's sources: its counter and one Query. A page with a source in it proves the base
 * exists, so the base is read, for its 404, only when the page comes back empty.
 */
export async function listSources(tenantId: string, kbId: string, q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst<SourceRecord>(sourceList(tenantId, kbId), q);
  if (!items.length) await readBase(tenantId, kbId);
  const shown = await Promise.all(items.map((s) => failIfStuckSource(s)));
  return toPage(shown.map(toSource), totalCount, q.page, q.pageSize);
}

export async function getSource(tenantId: string, kbId: string, sourceId: string) {
  return toSource(await failIfStuckSource(await readSource(tenantId, kbId, sourceId)));
}

export async function updateSource(
  tenantId: string,
  kbId: string,
  sourceId: string,
  input: { name?: string; settings?: SourceSettings; syncEvery?: SyncEvery },
  actor: Principal,
) {
  const source = await failIfStuckSource(await readSource(tenantId, kbId, sourceId, true));
  if (source.syncStatus === 'Running') throw conflict('A sync of this source is running; change it once the sync ends');
  const set: Partial<SourceRecord> = {};
  if (input.name !== undefined && input.name !== source.name) set.name = input.name;
  if (input.settings) {
    const limits = sourceLimits((await tenantLimits(tenantId)).planType);
    set.settings = await settingsFor(source.type, { ...source.settings, ...input.settings }, limits.pagesPerSource);
  }
  if (input.syncEvery !== undefined && input.syncEvery !== source.syncEvery) {
    set.syncEvery = input.syncEvery;
    set.nextSyncAt = nextSyncOf({ syncEvery: input.syncEvery }, Date.now());
  }
  if (!Object.keys(set).length) return toSource(source);
  const now = new Date().toISOString();
  const next = { ...source, ...set, updatedAt: now };
  const due = dueOf(next);
  await commitChange(
    [
      orConflict(
        updateItem(
          sourceKey(tenantId, kbId, sourceId),
          { ...set, updatedAt: now, ...due },
          {
            remove: 'gsi2pk' in due ? [] : ['gsi2pk', 'gsi2sk'],
            condition: 'attribute_exists(pk) AND syncStatus <> :running',
            values: { ':running': 'Running' },
          },
        ),
        conflict('A sync of this source started meanwhile; change it once the sync ends'),
      ),
    ],
    change(source, actor, 'update', { name: set.name, settings: set.settings, syncEvery: set.syncEvery }),
    { now },
  );
  return toSource(next);
}

/** The source goes at once (a running sync's next step finds it gone and stops); the worker removes its pages. */
export async function deleteSource(tenantId: string, kbId: string, sourceId: string, actor: Principal) {
  const source = await readSource(tenantId, kbId, sourceId, true);
  await commitChange(
    [
      orConflict(deleteItem(sourceKey(tenantId, kbId, sourceId), 'attribute_exists(pk)'), notFound('Source')),
      bumpCounter(sourceList(tenantId, kbId), -1),
      updateItem(kbKey(tenantId, kbId), {}, { add: { sourceCount: -1 }, condition: 'attribute_exists(pk)' }),
      source.settings.siteId && deleteItem(siteSourceKey(tenantId, source.settings.siteId, kbId, sourceId)),
    ],
    change(source, actor, 'delete', { kbId, name: source.name, pageCount: source.pageCount }),
  );
  await enqueue(PURGE_SOURCE, { tenantId, kbId, sourceId });
}

/** 202 Running, the first step queued; 409 while a sync runs. */
export async function syncSource(tenantId: string, kbId: string, sourceId: string, actor: Principal | null) {
  await readBase(tenantId, kbId);
  const started = await startSync(await readSource(tenantId, kbId, sourceId, true), actor);
  await enqueue(SYNC_SOURCE, { tenantId, kbId, sourceId, syncId: started.syncId! }, { id: `sync-${started.syncId}` });
  return toSource(started);
}
