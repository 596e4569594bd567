import type { Principal } from '#shared/auth/access-token.ts';
import { epochSeconds, randomToken, sha256 } from '#shared/auth/opaque.ts';
import { claimUnique } from '#shared/data/collection.ts';
import { deleteAll } from '#shared/data/batch.ts';
import { conflict, notFound, validationError } from '#shared/http/errors.ts';
import {
  bySortOrder,
  canonicalLocale,
  splitPages,
  type PageRecord,
  type PageTranslation,
} from '#areas/content/pages.ts';
import {
  claims,
  commit,
  del,
  exists,
  getSite,
  put,
  read,
  siteExists,
  siteItems,
  siteOfRecord,
  sk,
  nullable,
} from '#areas/content/store.ts';
import { keys, keys as k } from '#shared/data/keys.ts';
import { slug as slugSchema } from '#shared/routes/content.ts';
import { safeParse } from 'zod/mini';

export interface PageInput {
  slug: string;
  pageType: number;
  parentId?: string | null;
  sortOrder: number;
  isPublished: boolean;
  settings: string;
}

type PageView = PageRecord & { translations: PageTranslation[] };
type PageNode = PageView & { children: PageNode[] };

const pageItem = (r: PageRecord) => ({ pk: k.siteContent(r.siteId), sk: sk.page(r.id), ...r });
const SLUG_TAKEN = 'A sibling page already uses this slug';
export const PREVIEW_TTL_SECONDS = 15 * 60;

export async function getPage(siteId: string, id: string): Promise<PageView> {
  const { pages, translations } = splitPages(await siteItems(siteId.toLowerCase(), sk.page(id.toLowerCase())));
  const page = pages[0];
  if (!page) throw notFound('Page');
  return { ...page, translations: translations.get(page.id) ?? [] };
}

export async function pageTree(siteId: string): Promise<PageNode[]> {
  await getSite(siteId);
  const { pages, translations } = splitPages(await siteItems(siteId, 'PAGE#'));
  const nodes = new Map(
    pages.map((p) => [p.id, { ...p, translations: translations.get(p.id) ?? [], children: [] as PageNode[] }]),
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

export async function createPage(siteId: string, input: PageInput, actor: Principal) {
  const site = await getSite(siteId);
  const parentId = input.parentId?.toLowerCase() ?? null;
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
    settings: input.settings,
    createdAt: now,
    updatedAt: now,
  };
  await commit(
    [
      put(pageItem(record), 'attribute_not_exists(pk)'),
      claimUnique(claims.pageSlug(site.id, parentId, record.slug), { pageId: record.id }),
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
    { 1: SLUG_TAKEN, 2: 'The site was deleted meanwhile' },
    now,
  );
  return { ...record, translations: [] };
}

export async function updatePage(siteId: string, id: string, input: PageInput, actor: Principal) {
  const site = await getSite(siteId);
  const was = await getPage(site.id, id);
  const parentId = input.parentId?.toLowerCase() ?? null;
  await assertParent(site.id, parentId, was.id);
  const { translations, ...wasRecord } = was;
  const next: PageRecord = {
    ...wasRecord,
    slug: input.slug,
    pageType: input.pageType,
    parentId,
    sortOrder: input.sortOrder,
    isPublished: input.isPublished,
    settings: input.settings,
    updatedAt: new Date().toISOString(),
  };
  const moved = next.slug !== was.slug || next.parentId !== was.parentId;
  await commit(
    [
      put(pageItem(next), 'updatedAt = :was', { ':was': was.updatedAt }),
      moved ? claimUnique(claims.pageSlug(site.id, parentId, next.slug), { pageId: was.id }) : null,
      moved ? del(claims.pageSlug(site.id, was.parentId, was.slug)) : null,
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'Page',
      entityId: was.id,
      action: 'update',
      changes: { slug: next.slug, parentId, isPublished: next.isPublished, sortOrder: next.sortOrder },
    },
    { 1: SLUG_TAKEN },
  );
  return { ...next, translations };
}

export async function togglePublish(siteId: string, id: string, actor: Principal) {
  const site = await getSite(siteId);
  const was = await getPage(site.id, id);
  const { translations, ...record } = was;
  const next = { ...record, isPublished: !was.isPublished, updatedAt: new Date().toISOString() };
  await commit([put(pageItem(next), 'updatedAt = :was', { ':was': was.updatedAt })], {
    actor,
    tenantId: site.tenantId,
    entityType: 'Page',
    entityId: was.id,
    action: next.isPublished ? 'publish' : 'unpublish',
    changes: { isPublished: next.isPublished },
  });
  return { ...next, translations };
}

export async function deletePage(siteId: string, id: string, actor: Principal) {
  const site = await getSite(siteId);
  const page = await getPage(site.id, id);
  const { pages } = splitPages(await siteItems(site.id, 'PAGE#'));
  if (pages.some((p) => p.parentId === page.id)) throw conflict('This page has child pages; move or delete them first');
  await deleteAll(
    page.translations.map((t) => ({ pk: k.siteContent(site.id), sk: sk.pageTranslation(page.id, t.locale) })),
  );
  await commit(
    [
      del({ pk: k.siteContent(site.id), sk: sk.page(page.id) }, 'attribute_exists(pk)'),
      del(claims.pageSlug(site.id, page.parentId, page.slug)),
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'Page',
      entityId: page.id,
      action: 'delete',
      changes: { slug: page.slug, translations: page.translations.length },
    },
    { 0: 'The page was deleted meanwhile' },
  );
}

export interface PageTranslationInput {
  title: string;
  metaTitle?: string | null;
  metaDescription?: string | null;
  ogImageUrl?: string | null;
  contentBlocks: string;
}

export async function translatePage(pageId: string, locale: string, input: PageTranslationInput, actor: Principal) {
  const siteId = await siteOfRecord('PAGE', pageId, 'Page');
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
    contentBlocks: input.contentBlocks,
    updatedAt: now,
  };
  await commit(
    [
      put({ pk: k.siteContent(site.id), sk: sk.pageTranslation(page.id, tag), pageId: page.id, ...translation }),
      exists({ pk: k.siteContent(site.id), sk: sk.page(page.id) }),
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'PageTranslation',
      entityId: page.id,
      action: page.translations.some((t) => t.locale === tag) ? 'update' : 'create',
      changes: { locale: tag, title: input.title },
    },
    { 1: 'The page was deleted meanwhile' },
    now,
  );
  return {
    ...page,
    translations: [...page.translations.filter((t) => t.locale !== tag), translation].sort((a, b) =>
      a.locale.localeCompare(b.locale),
    ),
  };
}

export async function previewToken(pageId: string, actor: Principal) {
  const siteId = await siteOfRecord('PAGE', pageId, 'Page');
  const site = await getSite(siteId);
  const page = await getPage(site.id, pageId);
  const token = randomToken();
  const expiresAt = new Date(Date.now() + PREVIEW_TTL_SECONDS * 1000).toISOString();
  await commit(
    [
      put({
        ...keys.oneTime('PREVIEW', sha256(token)),
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
  if (!safeParse(slugSchema(), q.slug).success)
    return {
      isValid: false,
      isAvailable: false,
      message: 'A slug has lowercase letters, digits and single hyphens (at most 100 characters)',
    };
  const owner = await read(claims.pageSlug(site.id, q.parentId?.toLowerCase() ?? null, q.slug));
  const isAvailable = !owner || owner.pageId === q.excludePageId?.toLowerCase();
  return {
    isValid: true,
    isAvailable,
    message: isAvailable ? 'The slug is available' : 'A sibling page already uses this slug',
  };
}
