/** Knowledge sources' words and limits (docs/decisions/knowledge.md, "Sources"). */
export const SOURCE_TYPES = ['web', 'sitemap', 'site'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const SYNC_EVERY = ['off', 'hourly', 'daily', 'weekly'] as const;
export type SyncEvery = (typeof SYNC_EVERY)[number];
export const SYNC_INTERVAL_MS: Record<Exclude<SyncEvery, 'off'>, number> = {
  hourly: 3_600_000,
  daily: 86_400_000,
  weekly: 7 * 86_400_000,
};

export const SYNC_STATUSES = ['Idle', 'Running', 'Completed', 'Stopped', 'Failed'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

/**
 * What each plan type gets (1 Starter, 2 Professional, 3 Enterprise): sources per base and pages per
 * source. An unknown plan is the Starter's.
 */
export const SOURCE_LIMITS: Record<number, { sourcesPerBase: number; pagesPerSource: number }> = {
  1: { sourcesPerBase: 2, pagesPerSource: 100 },
  2: { sourcesPerBase: 10, pagesPerSource: 1_000 },
  3: { sourcesPerBase: 50, pagesPerSource: 5_000 },
};
export const sourceLimits = (planType: number | undefined) => SOURCE_LIMITS[planType ?? 1] ?? SOURCE_LIMITS[1]!;

/** The most a tenant may ask of a crawl, whatever its plan. */
export const MAX_DEPTH = 10;
export const MAX_START_URLS = 20;

/** Who is asking, so a site's operator can tell and write robots.txt rules for it. */
export const USER_AGENT = 'SaaSPlatformKnowledgeBot/1.0 (+https://docs.saas-platform.example/knowledge-sources)';
/** The name robots.txt groups are matched against. */
export const ROBOTS_AGENT = 'SaaSPlatformKnowledgeBot';

/** One page: at most 5 MB read (the rest refused), 15 s to answer, 5 redirects. */
export const PAGE_MAX_BYTES = 5 * 1024 * 1024;
export const PAGE_TIMEOUT_MS = 15_000;
export const MAX_REDIRECTS = 5;
/** A sitemap (after gunzip) and robots.txt: what the sitemap protocol allows, and a generous robots file. */
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
export const ROBOTS_MAX_BYTES = 512 * 1024;
/** Sitemaps read through one index, and index depth (an index may name indexes: refused past one level). */
export const MAX_SITEMAPS = 50;

/**
 * The least time between two requests to one host; a robots.txt Crawl-delay above it wins (up to
 * 10 s). KNOWLEDGE_SOURCE_PACE_MS lets the tests' loopback site go faster.
 */
export const hostPaceMs = () => {
  const set = Number(process.env.KNOWLEDGE_SOURCE_PACE_MS);
  return Number.isFinite(set) && set >= 0 ? set : 1_000;
};
export const MAX_CRAWL_DELAY_MS = 10_000;

/**
 * One run of the sync job: past this it saves where it is and queues its own continuation (the
 * worker's timeout is 300 s). KNOWLEDGE_SYNC_STEP_MS lets a test make every page a step.
 */
export const syncStepMs = () => {
  const set = Number(process.env.KNOWLEDGE_SYNC_STEP_MS);
  return Number.isFinite(set) && set >= 0 ? set : 200_000;
};
/** How many reasons a sync keeps of its failed pages (the count is exact). */
export const MAX_FAILURES_KEPT = 20;

/** Content types a page may have, mapped to the document type its original is stored as. */
export const PAGE_TYPES: Record<
  string,
  | 'text/html'
  | 'text/plain'
  | 'text/markdown'
  | 'application/pdf'
  | 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
> = {
  'text/html': 'text/html',
  'application/xhtml+xml': 'text/html',
  'text/plain': 'text/plain',
  'text/markdown': 'text/markdown',
  'text/x-markdown': 'text/markdown',
  'application/pdf': 'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document':
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};
