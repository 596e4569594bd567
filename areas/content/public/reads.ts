import { createHash } from 'node:crypto';
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { sha256 } from '#shared/auth/opaque.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { notFound } from '#shared/http/errors.ts';
import { type EmptyReply, type JsonReply, type RawReply, reply, toPage } from '#shared/http/responses.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { getSite, siteItems } from '#areas/content/lookup.ts';
import { bySortOrder, canonicalLocale, pickTranslation } from '#areas/content/page-order.ts';
import {
  claims,
  type PageRecord,
  type PageTranslation,
  type PostRecord,
  type PostTranslation,
  postTranslationKey,
  previewKey,
  type SiteRecord,
  sitePublishedPosts,
  sk,
  splitPages,
  splitPost,
  toPost,
  toPostTranslation,
} from '#areas/content/records.ts';
import { themeCss, themeOf } from '#areas/content/theme-css.ts';
import type { Item } from '#shared/data/keys.ts';

/** The spec's cache lifetimes of public reads. */
export const SITE_MAX_AGE = 300;
export const CONTENT_MAX_AGE = 120;

type Headers = Record<string, string | undefined>;

/** An active site (an inactive or unknown one is 404 to the public). */
export async function activeSite(siteId: string): Promise<SiteRecord> {
  const site = await getSite(siteId, false);
  if (!site.isActive) throw notFound('Site');
  return site;
}

const etagOf = (site: SiteRecord, body: string) =>
  `"${createHash('sha256').update(`${site.id}:${site.cacheVersion}:`).update(body).digest('base64url').slice(0, 27)}"`;
const matches = (header: string | undefined, etag: string) =>
  !!header && header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag || t.trim() === '*');

/**
 * A cacheable answer: Cache-Control public with the route's lifetime and an ETag over the body
 * and the site's cache version (bumped by cache/invalidate); 304 when If-None-Match holds it.
 */
export function cacheable<T>(site: SiteRecord, headers: Headers, maxAge: number, json: T): JsonReply<T> | EmptyReply {
  const etag = etagOf(site, JSON.stringify(json));
  const cacheHeaders = cacheHeadersOf(maxAge, etag);
  if (matches(headers['if-none-match'], etag)) return reply.empty(304, cacheHeaders);
  return reply.json(json, { headers: cacheHeaders });
}

/** The theme's style sheet, cacheable the same way. */
export function cacheableCss(site: SiteRecord, headers: Headers, maxAge: number, css: string): RawReply | EmptyReply {
  const etag = etagOf(site, css);
  const cacheHeaders = cacheHeadersOf(maxAge, etag);
  if (matches(headers['if-none-match'], etag)) return reply.empty(304, cacheHeaders);
  return reply.raw('text/css; charset=utf-8', css, { headers: cacheHeaders });
}

const cacheHeadersOf = (maxAge: number, etag: string) => ({ 'cache-control': `public, max-age=${maxAge}`, etag });

export async function resolveDomain(domain: string) {
  const owner = await get<{ siteId: string }>(claims.domain(domain));
  if (!owner) throw notFound('Site');
  const site = await activeSite(owner.siteId);
  return {
    site,
    view: {
      id: site.id,
      domain: site.domain,
      isMaster: site.isMaster,
      defaultLocale: site.defaultLocale,
      themeConfig: site.themeConfig,
      metadata: site.metadata,
    },
  };
}

export const css = (site: SiteRecord) => themeCss(themeOf(site.themeConfig));

const pageView = (p: PageRecord, t: PageTranslation | undefined) => ({
  id: p.id,
  slug: p.slug,
  pageType: p.pageType,
  parentId: p.parentId,
  sortOrder: p.sortOrder,
  settings: p.settings,
  locale: t?.locale ?? null,
  title: t?.title ?? null,
  metaTitle: t?.metaTitle ?? null,
  metaDescription: t?.metaDescription ?? null,
  ogImageUrl: t?.ogImageUrl ?? null,
  contentBlocks: t?.contentBlocks ?? null,
});

/** The page a slug names: a top-level page first, then the lowest sortOrder. */
const bySlug = (pages: PageRecord[], slug: string) =>
  pages.filter((p) => p.slug === slug).sort((a, b) => Number(!!a.parentId) - Number(!!b.parentId) || bySortOrder(a, b));

export async function publishedPages(site: SiteRecord, q: { locale?: string; parentSlug?: string }) {
  const { pages, translations } = splitPages(await siteItems(site.id, 'PAGE#', false));
  const published = pages.filter((p) => p.isPublished);
  let shown = published;
  if (q.parentSlug) {
    const parent = bySlug(published, q.parentSlug)[0];
    shown = parent ? published.filter((p) => p.parentId === parent.id) : [];
  }
  return shown
    .sort(bySortOrder)
    .map((p) => pageView(p, pickTranslation(translations.get(p.id), q.locale, site.defaultLocale)));
}

/** A valid preview token names one page and has not expired. */
async function previewOf(token: string | undefined): Promise<string | null> {
  if (!token) return null;
  const found = await get<{ pageId: string; expiresAt: string }>(previewKey(sha256(token)));
  return found && found.expiresAt > new Date().toISOString() ? found.pageId : null;
}

/**
 * A published page, or an unpublished one with its preview token; `preview` answers must not be
 * cached. The top-level page of a slug is found through its slug claim and read alone (its page
 * item and translations): the common case reads one page, not the site. Only when it is absent or
 * unpublished are the site's pages read, for a published child page of that slug or the preview.
 */
export async function pageBySlug(site: SiteRecord, slug: string, q: { locale?: string; preview_token?: string }) {
  const [top, previewPageId] = await Promise.all([topLevelPage(site.id, slug), previewOf(q.preview_token)]);
  const shown = (page: PageRecord, translations: PageTranslation[] | undefined) => ({
    preview: !page.isPublished,
    view: pageView(page, pickTranslation(translations, q.locale, site.defaultLocale)),
  });
  if (top?.page.isPublished) return shown(top.page, top.translations);
  const { pages, translations } = splitPages(await siteItems(site.id, 'PAGE#', false));
  const candidates = bySlug(pages, slug);
  const page = candidates.find((p) => p.isPublished) ?? candidates.find((p) => p.id === previewPageId);
  if (!page) throw notFound('Page');
  return shown(page, translations.get(page.id));
}

/** The top-level page holding a slug, with its translations (its claim, then one Query of its items). */
async function topLevelPage(siteId: string, slug: string) {
  const owner = await get<{ pageId: string }>(claims.pageSlug(siteId, null, slug));
  if (!owner) return undefined;
  const { pages, translations } = splitPages(await siteItems(siteId, sk.page(owner.pageId), false));
  const page = pages[0];
  return page && { page, translations: translations.get(page.id) };
}

const postView = (p: PostRecord, t: PostTranslation | undefined) => ({
  id: p.id,
  slug: p.slug,
  authorName: p.authorName,
  authorAvatarUrl: p.authorAvatarUrl,
  featuredImageUrl: p.featuredImageUrl,
  category: p.category,
  tags: p.tags,
  publishedAt: p.publishedAt,
  locale: t?.locale ?? null,
  title: t?.title ?? null,
  excerpt: t?.excerpt ?? null,
  bodyHtml: t?.bodyHtml ?? null,
  metaTitle: t?.metaTitle ?? null,
  metaDescription: t?.metaDescription ?? null,
});

/** The locale a post is shown in: the requested one when translated, else the site's default. */
const localeFor = (p: PostRecord, locale: string | undefined, fallback: string) => {
  const wanted = locale ? canonicalLocale(locale) : fallback;
  return p.locales.includes(wanted) ? wanted : p.locales.includes(fallback) ? fallback : null;
};

/**
 * Published posts with publishedAt in the past, newest first, from the site's published index
 * (a range up to now); then the shown translations in one BatchGet.
 */
export async function publishedPosts(
  site: SiteRecord,
  q: { page: number; pageSize: number; locale?: string; category?: string; tag?: string },
) {
  const filters: string[] = [];
  const values: Record<string, unknown> = {
    ':pk': sitePublishedPosts(site.id),
    ':now': `${new Date().toISOString()}#~`,
  };
  if (q.category) {
    filters.push('category = :category');
    values[':category'] = q.category;
  }
  if (q.tag) {
    filters.push('contains(tags, :tag)');
    values[':tag'] = q.tag;
  }
  const all = await queryItems<Item>({
    TableName: config.tableName,
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :now',
    ExpressionAttributeValues: values,
    ScanIndexForward: false,
    ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
  });
  const start = (q.page - 1) * q.pageSize;
  const posts = all.slice(start, start + q.pageSize).map(toPost);
  const wanted = posts.flatMap((p) => {
    const locale = localeFor(p, q.locale, site.defaultLocale);
    return locale ? [postTranslationKey(site.id, p.id, locale)] : [];
  });
  const found = wanted.length
    ? ((await ddb().send(new BatchGetCommand({ RequestItems: { [config.tableName]: { Keys: wanted } } }))).Responses?.[
        config.tableName
      ] ?? [])
    : [];
  const byPost = new Map(found.map((t) => [t.postId as string, toPostTranslation(t)]));
  return toPage(
    posts.map((p) => postView(p, byPost.get(p.id))),
    all.length,
    q.page,
    q.pageSize,
  );
}

export async function postBySlug(site: SiteRecord, slug: string, locale: string | undefined) {
  const owner = await get<{ postId: string }>(claims.postSlug(site.id, slug));
  const found = owner ? splitPost(await siteItems(site.id, sk.post(owner.postId), false)) : undefined;
  const now = new Date().toISOString();
  if (!found?.post.isPublished || !found.post.publishedAt || found.post.publishedAt > now) throw notFound('Post');
  return postView(found.post, pickTranslation(found.translations, locale, site.defaultLocale));
}
