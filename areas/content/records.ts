import { keys, PLATFORM, type Key, type Item } from '#shared/data/keys.ts';

/**
 * The content area's storage: key shapes, stored records and their item <-> API mappers.
 *
 * A site is a platform item (`PLATFORM#SITE` / id) with its tenant as an attribute (only SystemAdmin
 * administers content; public reads address sites by id). Pages, posts, their translations and
 * menus share the site's own partition (`PLATFORM#SITE#{siteId}`); form submissions and media are
 * items of their own (one GetItem by id), listed newest first through per-site gsi1 collections
 * with counters; published posts are also in a per-site gsi2 index ordered by publishedAt.
 */
const ITEM_SK = 'ITEM';
export const SITES = keys.platformCollection('SITE');
export const siteKey = (id: string): Key => keys.platformItem('SITE', id);
/** The partition of a site's pages, posts, translations and menus. */
export const siteContent = (siteId: string) => `${PLATFORM}#SITE#${siteId}`;
/** A site's gsi1 collections (newest first, with a counter each). */
export const siteList = (siteId: string, kind: 'POSTS' | 'FORMS' | 'MEDIA') => `${PLATFORM}#SITE#${siteId}#${kind}`;
/** gsi2 partition of a site's published posts, ordered by publishedAt. */
export const sitePublishedPosts = (siteId: string) => `${PLATFORM}#SITE#${siteId}#PUBLISHED`;
export const formKey = (id: string): Key => ({ pk: `${PLATFORM}#FORM#${id}`, sk: ITEM_SK });
export const mediaKey = (id: string): Key => ({ pk: `${PLATFORM}#MEDIA#${id}`, sk: ITEM_SK });

/** Sort keys inside a site's partition. */
export const sk = {
  page: (id: string) => `PAGE#${id}`,
  pageTranslation: (id: string, locale: string) => `PAGE#${id}#TR#${locale}`,
  post: (id: string) => `POST#${id}`,
  postTranslation: (id: string, locale: string) => `POST#${id}#TR#${locale}`,
  nav: (location: string) => `NAV#${location}`,
};
export const pageKey = (siteId: string, id: string): Key => ({ pk: siteContent(siteId), sk: sk.page(id) });
export const pageTranslationKey = (siteId: string, id: string, locale: string): Key => ({
  pk: siteContent(siteId),
  sk: sk.pageTranslation(id, locale),
});
export const postKey = (siteId: string, id: string): Key => ({ pk: siteContent(siteId), sk: sk.post(id) });
export const postTranslationKey = (siteId: string, id: string, locale: string): Key => ({
  pk: siteContent(siteId),
  sk: sk.postTranslation(id, locale),
});
/** The site a page or post partition key belongs to, or null when it is not a site's partition. */
export function siteOfPartition(pk: string): string | null {
  const prefix = siteContent('');
  return pk.startsWith(prefix) && !pk.slice(prefix.length).includes('#') ? pk.slice(prefix.length) : null;
}

/** Unique claims: a domain platform-wide, a master site per tenant, page slugs among siblings, post slugs per site. */
export const claims = {
  domain: (domain: string) => keys.unique('DOMAIN', domain),
  master: (tenantId: string) => keys.unique('MASTER_SITE', tenantId),
  pageSlug: (siteId: string, parentId: string | null, slug: string) =>
    keys.unique('PAGE_SLUG', `${siteId}#${parentId ?? 'ROOT'}#${slug}`),
  postSlug: (siteId: string, slug: string) => keys.unique('POST_SLUG', `${siteId}#${slug}`),
};
/** A page preview token, stored as its SHA-256 with a TTL. */
/** A page preview token, by its SHA-256 (short-lived one-time secret). */
export const previewKey = (tokenHash: string): Key => ({ pk: `OTP#PREVIEW#${tokenHash}`, sk: ITEM_SK });

const str = (v: unknown) => v as string;
const strOrNull = (v: unknown) => (typeof v === 'string' ? v : null);
/** An optional text as stored: absent and empty are null. */
export const nullable = <T>(v: T | null | undefined): T | null => (v === undefined || v === '' ? null : v);

// ---------------------------------------------------------------- sites

export interface SiteRecord {
  id: string;
  tenantId: string;
  domain: string;
  isMaster: boolean;
  defaultLocale: string;
  themeConfig: Record<string, unknown>;
  metadata: Record<string, unknown>;
  isActive: boolean;
  /** Bumped by cache/invalidate; part of every public ETag of the site. */
  cacheVersion: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * themeConfig and metadata are stored as JSON text, so any JSON object round-trips (DynamoDB maps
 * refuse empty attribute names and nest at most 32 levels). Sites written as maps still read.
 */
const jsonObject = (v: unknown): Record<string, unknown> =>
  typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : ((v as Record<string, unknown>) ?? {});
export const storedJson = (v: Record<string, unknown>) => JSON.stringify(v);

export const siteItem = (r: SiteRecord) => ({
  ...siteKey(r.id),
  ...keys.newestFirst(SITES, r.createdAt, r.id),
  ...r,
  themeConfig: storedJson(r.themeConfig),
  metadata: storedJson(r.metadata),
});

export const toSite = (i: Item): SiteRecord => ({
  id: str(i.id),
  tenantId: str(i.tenantId),
  domain: str(i.domain),
  isMaster: i.isMaster === true,
  defaultLocale: str(i.defaultLocale),
  themeConfig: jsonObject(i.themeConfig),
  metadata: jsonObject(i.metadata),
  isActive: i.isActive !== false,
  cacheVersion: Number(i.cacheVersion ?? 0),
  createdAt: str(i.createdAt),
  updatedAt: str(i.updatedAt ?? i.createdAt),
});

export const siteView = (s: SiteRecord) => ({
  id: s.id,
  tenantId: s.tenantId,
  domain: s.domain,
  isMaster: s.isMaster,
  defaultLocale: s.defaultLocale,
  themeConfig: s.themeConfig,
  metadata: s.metadata,
  isActive: s.isActive,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});

// ---------------------------------------------------------------- pages

export interface PageRecord {
  id: string;
  siteId: string;
  slug: string;
  pageType: number;
  parentId: string | null;
  sortOrder: number;
  isPublished: boolean;
  settings: string;
  createdAt: string;
  updatedAt: string;
}

export interface PageTranslation {
  locale: string;
  title: string;
  metaTitle: string | null;
  metaDescription: string | null;
  ogImageUrl: string | null;
  contentBlocks: string;
  updatedAt: string;
}

export type PageView = PageRecord & { translations: PageTranslation[] };

export const pageItem = (r: PageRecord) => ({ ...pageKey(r.siteId, r.id), ...r });
export const pageTranslationItem = (siteId: string, pageId: string, t: PageTranslation) => ({
  ...pageTranslationKey(siteId, pageId, t.locale),
  pageId,
  ...t,
});

export const isPageItem = (i: Item) => /^PAGE#[^#]+$/.test(String(i.sk));

const toPage = (i: Item): PageRecord => ({
  id: str(i.id),
  siteId: str(i.siteId),
  slug: str(i.slug),
  pageType: Number(i.pageType ?? 0),
  parentId: strOrNull(i.parentId),
  sortOrder: Number(i.sortOrder ?? 0),
  isPublished: i.isPublished === true,
  settings: typeof i.settings === 'string' ? i.settings : '{}',
  createdAt: str(i.createdAt),
  updatedAt: str(i.updatedAt),
});

const toPageTranslation = (i: Item): PageTranslation => ({
  locale: str(i.locale),
  title: str(i.title),
  metaTitle: strOrNull(i.metaTitle),
  metaDescription: strOrNull(i.metaDescription),
  ogImageUrl: strOrNull(i.ogImageUrl),
  contentBlocks: str(i.contentBlocks),
  updatedAt: str(i.updatedAt),
});

/** Pages and their translations from one query of the site's `PAGE#` items. */
export function splitPages(items: Item[]) {
  const pages = items.filter(isPageItem).map(toPage);
  const translations = new Map<string, PageTranslation[]>();
  for (const i of items) {
    if (isPageItem(i)) continue;
    const pageId = str(i.pageId);
    translations.set(pageId, [...(translations.get(pageId) ?? []), toPageTranslation(i)]);
  }
  return { pages, translations };
}

export const pageView = (p: PageRecord, translations: PageTranslation[]): PageView => ({
  id: p.id,
  siteId: p.siteId,
  slug: p.slug,
  pageType: p.pageType,
  parentId: p.parentId,
  sortOrder: p.sortOrder,
  isPublished: p.isPublished,
  settings: p.settings,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
  translations,
});

// ---------------------------------------------------------------- posts

export interface PostRecord {
  id: string;
  siteId: string;
  slug: string;
  authorName: string;
  authorAvatarUrl: string | null;
  featuredImageUrl: string | null;
  category: string;
  tags: string[];
  isPublished: boolean;
  publishedAt: string | null;
  /** Locales with a translation, so lists need no read of the translations. */
  locales: string[];
  createdAt: string;
  updatedAt: string;
}

export interface PostTranslation {
  locale: string;
  title: string;
  excerpt: string | null;
  bodyHtml: string;
  bodyMarkdown: string | null;
  metaTitle: string | null;
  metaDescription: string | null;
  updatedAt: string;
}

/** The stored item: newest-first in the site's post list; in the published index while published. */
export const postItem = (r: PostRecord) => ({
  ...postKey(r.siteId, r.id),
  ...keys.newestFirst(siteList(r.siteId, 'POSTS'), r.createdAt, r.id),
  ...(r.isPublished && r.publishedAt
    ? { gsi2pk: sitePublishedPosts(r.siteId), gsi2sk: `${r.publishedAt}#${r.id}` }
    : {}),
  ...r,
});
export const postTranslationItem = (siteId: string, postId: string, t: PostTranslation) => ({
  ...postTranslationKey(siteId, postId, t.locale),
  postId,
  ...t,
});

export const isPostItem = (i: Item) => /^POST#[^#]+$/.test(String(i.sk));

export const toPost = (i: Item): PostRecord => ({
  id: str(i.id),
  siteId: str(i.siteId),
  slug: str(i.slug),
  authorName: str(i.authorName),
  authorAvatarUrl: strOrNull(i.authorAvatarUrl),
  featuredImageUrl: strOrNull(i.featuredImageUrl),
  category: str(i.category),
  tags: (i.tags as string[] | undefined) ?? [],
  isPublished: i.isPublished === true,
  publishedAt: strOrNull(i.publishedAt),
  locales: (i.locales as string[] | undefined) ?? [],
  createdAt: str(i.createdAt),
  updatedAt: str(i.updatedAt),
});

export const toPostTranslation = (i: Item): PostTranslation => ({
  locale: str(i.locale),
  title: str(i.title),
  excerpt: strOrNull(i.excerpt),
  bodyHtml: str(i.bodyHtml),
  bodyMarkdown: strOrNull(i.bodyMarkdown),
  metaTitle: strOrNull(i.metaTitle),
  metaDescription: strOrNull(i.metaDescription),
  updatedAt: str(i.updatedAt),
});

/** A post and its translations from one query of `POST#{id}` items. */
export function splitPost(items: Item[]) {
  const record = items.find(isPostItem);
  if (!record) return undefined;
  return { post: toPost(record), translations: items.filter((i) => !isPostItem(i)).map(toPostTranslation) };
}

/** The admin view of a post: its translations when loaded (a list loads none), `locales` always. */
export const postView = (p: PostRecord, translations: PostTranslation[]) => ({
  id: p.id,
  siteId: p.siteId,
  slug: p.slug,
  authorName: p.authorName,
  authorAvatarUrl: p.authorAvatarUrl,
  featuredImageUrl: p.featuredImageUrl,
  category: p.category,
  tags: p.tags,
  isPublished: p.isPublished,
  publishedAt: p.publishedAt,
  locales: [...p.locales].sort(),
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
  translations,
});

// ---------------------------------------------------------------- menus

/** A stored menu entry: a page of the same site or a URL, with its children. */
export interface NavItem {
  label: string;
  pageId: string | null;
  url: string | null;
  children: NavItem[];
}

export const menuItem = (siteId: string, location: string, items: NavItem[], updatedAt: string) => ({
  pk: siteContent(siteId),
  sk: sk.nav(location),
  location,
  items,
  updatedAt,
});

export const toMenu = (i: Item) => ({
  location: str(i.location),
  items: (i.items as NavItem[] | undefined) ?? [],
  updatedAt: strOrNull(i.updatedAt),
});

// ---------------------------------------------------------------- form submissions

export interface FormRecord {
  id: string;
  siteId: string;
  tenantId: string;
  formType: string;
  fields: Record<string, string>;
  status: number;
  internalNotes: string | null;
  isSpam: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A submission is its own item (one GetItem by id), listed newest first in its site's FORMS collection. */
export const formItem = (r: FormRecord) => ({
  ...formKey(r.id),
  ...keys.newestFirst(siteList(r.siteId, 'FORMS'), r.createdAt, r.id),
  ...r,
});

export const toForm = (i: Item): FormRecord => ({
  id: str(i.id),
  siteId: str(i.siteId),
  tenantId: str(i.tenantId),
  formType: str(i.formType),
  fields: (i.fields as Record<string, string> | undefined) ?? {},
  status: Number(i.status ?? 0),
  internalNotes: strOrNull(i.internalNotes),
  isSpam: i.isSpam === true,
  createdAt: str(i.createdAt),
  updatedAt: str(i.updatedAt),
});

export const formView = (f: FormRecord) => ({
  id: f.id,
  siteId: f.siteId,
  formType: f.formType,
  fields: f.fields,
  status: f.status,
  internalNotes: f.internalNotes,
  isSpam: f.isSpam,
  createdAt: f.createdAt,
  updatedAt: f.updatedAt,
});

// ---------------------------------------------------------------- media

export interface MediaRecord {
  id: string;
  siteId: string;
  tenantId: string;
  folder: string;
  fileName: string;
  contentType: string;
  size: number;
  /** `pending` until a presigned upload is completed; direct uploads are `ready` at once. */
  status: 'pending' | 'ready';
  /** The S3 object served (after `complete` for a presigned upload). */
  key: string;
  /** Where a presigned upload lands until `complete` checks it and copies it to `key`. */
  uploadKey: string | null;
  createdAt: string;
}

export const mediaItem = (r: MediaRecord) => ({
  ...mediaKey(r.id),
  ...keys.newestFirst(siteList(r.siteId, 'MEDIA'), r.createdAt, r.id),
  ...r,
});

export const toMedia = (i: Item): MediaRecord => ({
  id: str(i.id),
  siteId: str(i.siteId),
  tenantId: str(i.tenantId),
  folder: str(i.folder),
  fileName: str(i.fileName),
  contentType: str(i.contentType),
  size: Number(i.size ?? 0),
  status: i.status === 'ready' ? 'ready' : 'pending',
  key: str(i.key),
  uploadKey: strOrNull(i.uploadKey),
  createdAt: str(i.createdAt),
});

/** The API view of a media record; `url` is a presigned GET of its object. */
export const mediaView = (m: MediaRecord, url: string) => ({
  id: m.id,
  siteId: m.siteId,
  folder: m.folder,
  fileName: m.fileName,
  contentType: m.contentType,
  size: m.size,
  status: m.status,
  key: m.key,
  url,
  createdAt: m.createdAt,
});
