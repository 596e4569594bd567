import { keys } from '#shared/data/keys.ts';
import { sk, type Item } from './store.ts';

/** Blog post and translation records as stored in the site's partition. */
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

export const isPostItem = (i: Item) => /^POST#[^#]+$/.test(String(i.sk));

export const toPost = (i: Item): PostRecord => ({
  id: i.id as string,
  siteId: i.siteId as string,
  slug: i.slug as string,
  authorName: i.authorName as string,
  authorAvatarUrl: (i.authorAvatarUrl as string | null) ?? null,
  featuredImageUrl: (i.featuredImageUrl as string | null) ?? null,
  category: i.category as string,
  tags: (i.tags as string[]) ?? [],
  isPublished: i.isPublished === true,
  publishedAt: (i.publishedAt as string | null) ?? null,
  locales: (i.locales as string[]) ?? [],
  createdAt: i.createdAt as string,
  updatedAt: i.updatedAt as string,
});

export const toPostTranslation = (i: Item): PostTranslation => ({
  locale: i.locale as string,
  title: i.title as string,
  excerpt: (i.excerpt as string | null) ?? null,
  bodyHtml: i.bodyHtml as string,
  bodyMarkdown: (i.bodyMarkdown as string | null) ?? null,
  metaTitle: (i.metaTitle as string | null) ?? null,
  metaDescription: (i.metaDescription as string | null) ?? null,
  updatedAt: i.updatedAt as string,
});

/** The stored item: newest-first in the site's post list; in the published index while published. */
export const postItem = (r: PostRecord) => ({
  pk: keys.siteContent(r.siteId),
  sk: sk.post(r.id),
  ...keys.newestFirst(keys.siteList(r.siteId, 'POSTS'), r.createdAt, r.id),
  ...(r.isPublished && r.publishedAt
    ? { gsi2pk: keys.sitePublishedPosts(r.siteId), gsi2sk: `${r.publishedAt}#${r.id}` }
    : {}),
  ...r,
});

/** A post and its translations from one query of `POST#{id}` items. */
export function splitPost(items: Item[]) {
  const record = items.find(isPostItem);
  if (!record) return undefined;
  return { post: toPost(record), translations: items.filter((i) => !isPostItem(i)).map(toPostTranslation) };
}
