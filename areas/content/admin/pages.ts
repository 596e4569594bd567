import { contentChanged } from './content-changed.ts';
import { asRead } from '#shared/data/as-read.ts';
import type { Principal } from '#shared/auth/access-token.ts';
import { epochSeconds, randomToken, sha256 } from '#shared/auth/opaque.ts';
import { deleteAll } from '#shared/data/batch.ts';
import { checkItem, commitChange, deleteItem, orConflict, putItem, putNew } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { conflict, notFound, validationError } from '#shared/http/errors.ts';
import { sanitizeContentJson } from '#areas/content/blocks.ts';
import { getSite, siteItems, siteOfRecord } from '#areas/content/lookup.ts';
import { bySortOrder, canonicalLocale } from '#areas/content/page-order.ts';
import {
  claims,
  nullable,
  type PageRecord,
  type PageTranslation,
  type PageView,
  pageItem,
  pageKey,
  pageTranslationItem,
  pageTranslationKey,
  pageView,
  previewKey,
  siteKey,
  sk,
  splitPages,
} from '#areas/content/records.ts';
import { SLUG, SLUG_MAX } from '#areas/content/vocabulary.ts';
import { sanitizeHtml } from './sanitize.ts';

export interface PageInput {
  slug: string;
  pageType: number;
  parentId?: string | null;
  sortOrder: number;
  isPublished: boolean;
  settings: string;
}

type PageNode = PageView & { children: PageNode[] };

const SLUG_TAKEN = 'A sibling page already uses this slug';
const SITE_GONE = 'The site was deleted meanwhile';
const PREVIEW_TTL_SECONDS = 15 * 60;

/**
 * Page settings and content blocks as stored: the JSON the schema checked (blocks.ts), with every
 * `html` field sanitized like a post body, written compactly.
 */
const storedContent = async (json: string) => JSON.stringify(await sanitizeContentJson(JSON.parse(json), sanitizeHtml));
const siteExists = (siteId: string) => orConflict(checkItem(siteKey(siteId), 'attribute_exists(pk)'), SITE_GONE);

export async function getPage(siteId: string, id: string): Promise<PageView> {
  const { pages, translations } = splitPages(await siteItems(siteId, sk.page(id)));
  const page = pages[0];
  if (!page) throw notFound('Page');
  return pageView(page, translations.get(page.id) ?? []);
}

export async function pageTree(siteId: string): Promise<PageNode[]> {
  await getSite(siteId);
  const { pages, translations } = splitPages(await siteItems(siteId, 'PAGE#'));
  const nodes = new Map<string, PageNode>(
    pages.map((p) => [p.id, { ...pageView(p, translations.get(p.id) ?? []), children: [] }]),
  );
  const roots: PageNode[] = [];
  for (const p of [...pages].sort(bySortOrder))
    (p.parentId && nodes.get(p.parentId) ? nodes.get(p.parentId)!.children : roots).push(nodes.get(p.id)!);
  return roots;
}

async function assertParent(siteId: string, parentId: string | null, selfId?: string) {
  if (!parentId) return;
  const { pages } = splitPages(await siteItems(siteId, 'PAGE#'));
  const byId = new Map(pages.map((p) => [p.id, p]));
  if (!byId.has(parentId)) throw validationError([{ path: 'body.parentId', message: 'No such page in this site' }]);
  // Walk up from the new parent: meeting the page itself means the move would make a cycle.
  for (
    let at: string | null = parentId, hops = 0;
    at && hops <= byId.size;
    at = byId.get(at)?.parentId ?? null, hops++
  ) {
    if (at === selfId)
      throw validationError([
        { path: 'body.parentId', message: 'A page cannot be moved under itself or its descendants' },
      ]);
  }
}

export async function createPage(siteId: string, input: PageInput, actor: Principal): Promise<PageView> {
  const site = await getSite(siteId);
  const parentId = input.parentId ?? null;
  await assertParent(site.id, parentId);
  const now = new Date().toISOString();
  const record: PageRecord = {
    id: crypto.randomUUID(),
    siteId: site.id,
    slug: input.slug,
    pageType: input.pageType,
    parentId,
    sortOrder: input.sortOrder,
    isPublished: input.isPublished,
    settings: await storedContent(input.settings),
    createdAt: now,
    updatedAt: now,
  };
  await commitChange(
    [
      putNew(pageItem(record)),
      orConflict(putNew({ ...claims.pageSlug(site.id, parentId, record.slug), pageId: record.id }), SLUG_TAKEN),
      siteExists(site.id),
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'Page',
      entityId: record.id,
      action: 'create',
      changes: { siteId: site.id, slug: record.slug, parentId, isPublished: record.isPublished },
    },
    { now },
  );
  return pageView(record, []);
}

export async function updatePage(siteId: string, id: string, input: PageInput, actor: Principal): Promise<PageView> {
  const site = await getSite(siteId);
  const was = await getPage(site.id, id);
  const parentId = input.parentId ?? null;
  await assertParent(site.id, parentId, was.id);
  const now = new Date().toISOString();
  const { translations, ...record } = was;
  const next: PageRecord = {
    ...record,
    slug: input.slug,
    pageType: input.pageType,
    parentId,
    sortOrder: input.sortOrder,
    isPublished: input.isPublished,
    settings: await storedContent(input.settings),
    updatedAt: now,
  };
  const moved = next.slug !== was.slug || next.parentId !== was.parentId;
  await commitChange(
    [
      putItem(pageItem(next), asRead(was, 'updatedAt')),
      moved && orConflict(putNew({ ...claims.pageSlug(site.id, parentId, next.slug), pageId: was.id }), SLUG_TAKEN),
      moved && deleteItem(claims.pageSlug(site.id, was.parentId, was.slug)),
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'Page',
      entityId: was.id,
      action: 'update',
      changes: { slug: next.slug, parentId, isPublished: next.isPublished, sortOrder: next.sortOrder },
    },
    { now },
  );
  await contentChanged(site);
  return pageView(next, translations);
}

export async function togglePublish(siteId: string, id: string, actor: Principal): Promise<PageView> {
  const site = await getSite(siteId);
  const was = await getPage(site.id, id);
  const { translations, ...record } = was;
  const next: PageRecord = { ...record, isPublished: !was.isPublished, updatedAt: new Date().toISOString() };
  await commitChange([putItem(pageItem(next), asRead(was, 'updatedAt'))], {
    actor,
    tenantId: site.tenantId,
    entityType: 'Page',
    entityId: was.id,
    action: next.isPublished ? 'publish' : 'unpublish',
    changes: { isPublished: next.isPublished },
  });
  await contentChanged(site);
  return pageView(next, translations);
}

export async function deletePage(siteId: string, id: string, actor: Principal) {
  const site = await getSite(siteId);
  const page = await getPage(site.id, id);
  const { pages } = splitPages(await siteItems(site.id, 'PAGE#'));
  if (pages.some((p) => p.parentId === page.id)) throw conflict('This page has child pages; move or delete them first');
  await deleteAll(page.translations.map((t) => pageTranslationKey(site.id, page.id, t.locale)));
  await commitChange(
    [
      orConflict(deleteItem(pageKey(site.id, page.id), 'attribute_exists(pk)'), 'The page was deleted meanwhile'),
      deleteItem(claims.pageSlug(site.id, page.parentId, page.slug)),
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'Page',
      entityId: page.id,
      action: 'delete',
      changes: { slug: page.slug, translations: page.translations.length },
    },
  );
  await contentChanged(site);
}

export interface PageTranslationInput {
  title: string;
  metaTitle?: string | null;
  metaDescription?: string | null;
  ogImageUrl?: string | null;
  contentBlocks: string;
}

export async function translatePage(
  pageId: string,
  locale: string,
  input: PageTranslationInput,
  actor: Principal,
): Promise<PageView> {
  const siteId = await siteOfRecord('page', pageId, 'Page');
  const site = await getSite(siteId);
  const page = await getPage(site.id, pageId);
  const tag = canonicalLocale(locale);
  const now = new Date().toISOString();
  const translation: PageTranslation = {
    locale: tag,
    title: input.title,
    metaTitle: nullable(input.metaTitle),
    metaDescription: nullable(input.metaDescription),
    ogImageUrl: nullable(input.ogImageUrl),
    contentBlocks: await storedContent(input.contentBlocks),
    updatedAt: now,
  };
  await commitChange(
    [
      putItem(pageTranslationItem(site.id, page.id, translation)),
      orConflict(checkItem(pageKey(site.id, page.id), 'attribute_exists(pk)'), 'The page was deleted meanwhile'),
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'PageTranslation',
      entityId: page.id,
      action: page.translations.some((t) => t.locale === tag) ? 'update' : 'create',
      changes: { locale: tag, title: input.title },
    },
    { now },
  );
  await contentChanged(site);
  return {
    ...page,
    translations: [...page.translations.filter((t) => t.locale !== tag), translation].sort((a, b) =>
      a.locale.localeCompare(b.locale),
    ),
  };
}

export async function previewToken(pageId: string, actor: Principal) {
  const siteId = await siteOfRecord('page', pageId, 'Page');
  const site = await getSite(siteId);
  const page = await getPage(site.id, pageId);
  const token = randomToken();
  const expiresAt = new Date(Date.now() + PREVIEW_TTL_SECONDS * 1000).toISOString();
  await commitChange(
    [
      putItem({
        ...previewKey(sha256(token)),
        pageId: page.id,
        siteId: site.id,
        expiresAt,
        ttl: epochSeconds() + PREVIEW_TTL_SECONDS,
      }),
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'Page',
      entityId: page.id,
      action: 'preview-token',
      changes: { expiresAt },
    },
  );
  return { token, pageId: page.id, expiresAt };
}

export async function validateSlug(siteId: string, q: { slug: string; excludePageId?: string; parentId?: string }) {
  const site = await getSite(siteId);
  if (q.slug.length > SLUG_MAX || !SLUG.test(q.slug))
    return {
      isValid: false,
      isAvailable: false,
      message: 'A slug has lowercase letters, digits and single hyphens (at most 100 characters)',
    };
  const owner = await get<{ pageId?: string }>(claims.pageSlug(site.id, q.parentId ?? null, q.slug), {
    consistent: true,
  });
  const isAvailable = !owner || owner.pageId === q.excludePageId;
  return {
    isValid: true,
    isAvailable,
    message: isAvailable ? 'The slug is available' : 'A sibling page already uses this slug',
  };
}
