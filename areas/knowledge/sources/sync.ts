import { get } from '#shared/data/read.ts';
import { logger } from '#shared/runtime/logger.ts';
import { enqueue } from '#shared/queue/messages.ts';
import { tenantLimits } from '#areas/identity/for-knowledge.ts';
import { SYNC_SOURCE } from '../messages.ts';
import { getObject, putObject } from '../objects.ts';
import { kbKey, type BaseRecord } from '../records.ts';
import { extractArticle, hashOf } from './extract.ts';
import { fetchPage, type Fetched } from './fetch-page.ts';
import { markSeen, missPage, newPage, pagesOf, readPage, recordVersion, settlePending } from './pages.ts';
import {
  emptyProgress,
  sourceKey,
  syncStateKey,
  type PageRecord,
  type SourceRecord,
  type SyncProgress,
} from './source-records.ts';
import { Crawler } from './robots.ts';
import { lastmodTime, parseSitemap } from './sitemap.ts';
import { endSync, resyncIfAsked, writeProgress } from './sync-state.ts';
import { runSiteSync } from './site-sync.ts';
import {
  MAX_FAILURES_KEPT,
  MAX_SITEMAPS,
  PAGE_MAX_BYTES,
  PAGE_TYPES,
  SITEMAP_MAX_BYTES,
  syncStepMs,
  sourceLimits,
} from './source-vocabulary.ts';

/**
 * A source's sync as steps on the indexing queue: each reads pages until its time is up, keeps what
 * is left to read under the base's prefix and queues the next step; the last removes what the sync
 * did not find (after the grace of one sync) and ends it. Only a page whose text changed becomes a
 * new version to chunk and embed: a 304, a sitemap lastmod no newer than the version held, or the
 * same content hash costs a request at most, and nothing of the allowance.
 */
interface Todo {
  url: string;
  kind: 'page' | 'sitemap';
  depth: number;
  lastmod?: string | null;
}

interface SyncState {
  syncId: string;
  todo: Todo[];
  seen: string[];
  sitemaps: number;
  pages: number;
  /** Pages queued so far: past maxPages nothing more is queued, so what a step keeps stays bounded. */
  queued: number;
  maxPages: number;
  /** The page limit cut the crawl short: pages not reached are not counted as gone. */
  truncated: boolean;
  progress: SyncProgress;
}

const ACCEPT_PAGE =
  'text/html,application/xhtml+xml,text/plain,text/markdown,application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document;q=0.9,*/*;q=0.1';
const ACCEPT_SITEMAP = 'application/xml,text/xml,application/gzip,application/x-gzip;q=0.9,*/*;q=0.1';
const PROGRESS_EVERY = 10;

const globRegex = (patterns: string | null | undefined) => {
  const list = (patterns ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (!list.length) return null;
  return new RegExp(`^(?:${list.map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')).join('|')})$`);
};

/** A link as the crawl keys it: absolute, http(s), without its fragment. */
export function normalise(href: string, base?: URL): string | null {
  try {
    const u = new URL(href, base);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
    u.hash = '';
    return u.toString();
  } catch {
    return null;
  }
}

async function initialState(source: SourceRecord, syncId: string): Promise<SyncState> {
  const limits = sourceLimits((await tenantLimits(source.tenantId)).planType);
  const maxPages = Math.min(source.settings.maxPages ?? limits.pagesPerSource, limits.pagesPerSource);
  const starts: Todo[] =
    source.type === 'sitemap'
      ? [{ url: source.settings.sitemapUrl ?? '', kind: 'sitemap', depth: 0 }]
      : (source.settings.startUrls ?? []).map((url) => ({ url, kind: 'page', depth: 0 }));
  const todo = starts.flatMap((t) => {
    const url = normalise(t.url);
    return url ? [{ ...t, url }] : [];
  });
  return {
    syncId,
    todo,
    seen: todo.map((t) => t.url),
    sitemaps: 0,
    pages: 0,
    queued: todo.filter((t) => t.kind === 'page').length,
    maxPages,
    truncated: false,
    progress: emptyProgress(),
  };
}

const fail = (state: SyncState, url: string, reason: string) => {
  state.progress.failed++;
  if (state.progress.failures.length < MAX_FAILURES_KEPT)
    state.progress.failures.push({ url, reason: reason.slice(0, 300) });
};

class Step {
  readonly crawler = new Crawler();
  /** What was queued or read, as a set (the state keeps it as a list between steps). */
  private seen: Set<string>;
  private hosts: Set<string>;
  private include: RegExp | null;
  private exclude: RegExp | null;

  constructor(
    readonly source: SourceRecord,
    readonly state: SyncState,
  ) {
    const s = source.settings;
    this.seen = new Set(state.seen);
    this.hosts = new Set((s.startUrls ?? []).flatMap((u) => (normalise(u) ? [new URL(u).host] : [])));
    this.include = globRegex(s.include);
    this.exclude = globRegex(s.exclude);
  }

  private follow(href: string, from: Todo, base: URL) {
    const url = normalise(href, base);
    if (!url || this.seen.has(url)) return;
    const u = new URL(url);
    if (this.source.settings.sameHostOnly !== false && !this.hosts.has(u.host)) return;
    if (this.include && !this.include.test(u.pathname)) return;
    if (this.exclude?.test(u.pathname)) return;
    if (!this.room()) return;
    this.mark(url);
    this.state.todo.push({ url, kind: 'page', depth: from.depth + 1 });
  }

  /** Whether one more page may be queued; when not, the crawl is cut short (no misses are counted). */
  private room() {
    if (this.state.queued >= this.state.maxPages) {
      this.state.truncated = true;
      return false;
    }
    this.state.queued++;
    return true;
  }

  private mark(url: string) {
    this.seen.add(url);
    this.state.seen.push(url);
  }

  async sitemap(t: Todo) {
    if (++this.state.sitemaps > MAX_SITEMAPS) return fail(this.state, t.url, `More than ${MAX_SITEMAPS} sitemaps`);
    const got = await fetchPage(t.url, {
      maxBytes: SITEMAP_MAX_BYTES,
      accept: ACCEPT_SITEMAP,
      pace: this.crawler.pace,
      refuse: this.crawler.refuse,
    });
    if (got.kind !== 'page')
      return fail(
        this.state,
        t.url,
        got.kind === 'gone' ? `HTTP ${got.status}` : got.kind === 'failed' ? got.reason : 'Not modified',
      );
    let parsed: ReturnType<typeof parseSitemap>;
    try {
      parsed = parseSitemap(got.bytes);
    } catch (err) {
      return fail(this.state, t.url, `The sitemap could not be read: ${(err as Error).message}`);
    }
    for (const e of parsed.entries) {
      const url = normalise(e.loc, got.url);
      if (!url || this.seen.has(url)) continue;
      // The protocol's rule: a sitemap names URLs of its own host only.
      if (new URL(url).host !== got.url.host) continue;
      // An index names sitemaps; a sitemap named inside a sitemap's sitemap is not followed further.
      if (parsed.kind === 'index' && t.depth > 0) continue;
      if (parsed.kind === 'urlset' && !this.room()) break;
      this.mark(url);
      this.state.todo.push(
        parsed.kind === 'index'
          ? { url, kind: 'sitemap', depth: t.depth + 1 }
          : { url, kind: 'page', depth: 0, lastmod: e.lastmod },
      );
    }
  }

  async page(t: Todo) {
    const { source, state } = this;
    state.pages++;
    state.progress.pagesSeen++;
    let page = (await readPage(source, t.url)) ?? newPage(source, t.url);
    const settled = await settlePending(page);
    page = settled.page;
    if (settled.busy) {
      state.progress.unchanged++;
      await markSeen(page, state.syncId);
      return;
    }
    const known = page.documentId ? page : null;
    const lastmod = lastmodTime(t.lastmod ?? null);
    if (known && lastmod !== null && known.lastmod && lastmod <= (lastmodTime(known.lastmod) ?? 0)) {
      state.progress.unchanged++;
      await markSeen(page, state.syncId);
      return;
    }
    const got: Fetched = await fetchPage(t.url, {
      maxBytes: PAGE_MAX_BYTES,
      accept: ACCEPT_PAGE,
      pace: this.crawler.pace,
      refuse: this.crawler.refuse,
      etag: known?.etag,
      lastModified: known?.lastModified,
    });
    if (got.kind === 'unchanged') {
      state.progress.unchanged++;
      await markSeen(page, state.syncId, t.lastmod ? { lastmod: t.lastmod } : {});
      return;
    }
    if (got.kind === 'gone') return this.gone(page, `HTTP ${got.status}`);
    if (got.kind === 'failed') {
      fail(state, t.url, got.reason);
      // Refused, unreachable or erring: what the base holds stays until the page is found gone.
      if (page.documentId) await markSeen(page, state.syncId);
      return;
    }
    const type = PAGE_TYPES[got.contentType];
    if (!type) {
      fail(
        state,
        t.url,
        `A page of type ${got.contentType || 'unknown'} is not read (HTML, text, Markdown, PDF and DOCX are)`,
      );
      return;
    }
    let version: { title: string; contentType: string; bytes: Uint8Array; hash: string };
    if (type === 'text/html') {
      const article = await extractArticle(got.bytes.toString('utf8'), got.url);
      if (source.type === 'web' && t.depth < (source.settings.maxDepth ?? 2))
        for (const href of article.links) this.follow(href, t, got.url);
      if (article.noindex) return this.gone(page, 'The page asks not to be indexed (noindex)');
      version = {
        title: article.title,
        contentType: 'text/html',
        bytes: Buffer.from(article.html),
        hash: article.hash,
      };
    } else {
      const name = decodeURIComponent(got.url.pathname.split('/').pop() || got.url.host);
      version = { title: name.slice(0, 300), contentType: type, bytes: got.bytes, hash: hashOf(got.bytes) };
    }
    if (page.documentId && version.hash === page.contentHash) {
      state.progress.unchanged++;
      await markSeen(page, state.syncId, {
        etag: got.etag,
        lastModified: got.lastModified,
        ...(t.lastmod ? { lastmod: t.lastmod } : {}),
      });
      return;
    }
    state.progress.changed++;
    await recordVersion(
      source,
      page,
      { ...version, etag: got.etag, lastModified: got.lastModified, lastmod: t.lastmod ?? null },
      state.syncId,
    );
  }

  private async gone(page: PageRecord, reason: string) {
    fail(this.state, page.url, reason);
    if (!page.documentId && !page.pendingDocumentId) return;
    if (await missPage(page, this.state.syncId)) this.state.progress.removed++;
  }
}

const stopReasonOf = async (s: SourceRecord) =>
  (await get<SourceRecord>(sourceKey(s.tenantId, s.kbId, s.id), { consistent: true }))?.stopReason ?? null;

/** One step of the sync named by the message; a message of a sync that is no longer the source's does nothing. */
export async function runSyncStep(msg: { tenantId: string; kbId: string; sourceId: string; syncId: string }) {
  const [source, base] = await Promise.all([
    get<SourceRecord>(sourceKey(msg.tenantId, msg.kbId, msg.sourceId), { consistent: true }),
    get<BaseRecord>(kbKey(msg.tenantId, msg.kbId), { consistent: true }),
  ]);
  if (!source || !base || source.syncId !== msg.syncId || source.syncStatus !== 'Running') return { status: 'skipped' };
  if (source.type === 'site') return runSiteSync(source, msg.syncId);
  const stateKey = syncStateKey(source.tenantId, source.kbId, source.id);
  const saved = await getObject(stateKey);
  let state: SyncState | null = saved ? (JSON.parse(Buffer.from(saved).toString('utf8')) as SyncState) : null;
  if (state?.syncId !== msg.syncId) state = await initialState(source, msg.syncId);
  state.queued ??= state.pages + state.todo.filter((t) => t.kind === 'page').length;
  const step = new Step(source, state);
  const started = Date.now();
  let visited = 0;
  let stop: string | null = null;
  while (state.todo.length) {
    if (visited > 0 && Date.now() - started >= syncStepMs()) break;
    const t = state.todo[0]!;
    if (t.kind === 'page' && state.pages >= state.maxPages) {
      state.truncated = true;
      break;
    }
    state.todo.shift();
    const changed = state.progress.changed;
    try {
      await (t.kind === 'sitemap' ? step.sitemap(t) : step.page(t));
    } catch (err) {
      logger.warn('source page not synced', { sourceId: source.id, error: err as Error });
      fail(state, t.url, 'The page could not be stored; it is read again next sync');
    }
    // A new version may have met a refused embedding (its indexing asks the sync to stop).
    if (state.progress.changed > changed) stop = await stopReasonOf(source);
    if (stop) break;
    if (++visited % PROGRESS_EVERY === 0) {
      if (!(await writeProgress(source, msg.syncId, state.progress))) return { status: 'superseded' };
      stop = await stopReasonOf(source);
      if (stop) break;
    }
  }
  stop ??= await stopReasonOf(source);
  if (!stop && state.todo.length && !state.truncated) {
    await putObject(stateKey, JSON.stringify(state), 'application/json');
    if (!(await writeProgress(source, msg.syncId, state.progress))) return { status: 'superseded' };
    await enqueue(SYNC_SOURCE, msg, { id: `sync-${msg.syncId}-${state.progress.pagesSeen}-${state.sitemaps}` });
    return { status: 'continued' };
  }
  return finish(source, state, stop);
}

/** The pages this sync did not find are missed (removed at their second miss), unless it stopped short. */
async function finish(source: SourceRecord, state: SyncState, stop: string | null) {
  const pages = await pagesOf(source);
  let kept = 0;
  for (const p of pages) {
    const missed = p.lastSeenSyncId !== state.syncId;
    if (missed && !stop && !state.truncated) {
      if (await missPage(p, state.syncId)) {
        state.progress.removed++;
        continue;
      }
    }
    kept++;
  }
  await putObject(
    syncStateKey(source.tenantId, source.kbId, source.id),
    JSON.stringify({ syncId: null }),
    'application/json',
  );
  const ended = await endSync(source, state.syncId, stop ? 'Stopped' : 'Completed', {
    progress: state.progress,
    error: stop,
    pageCount: kept,
  });
  if (ended) await resyncIfAsked(ended);
  return { status: ended?.syncStatus ?? 'superseded', progress: state.progress };
}
