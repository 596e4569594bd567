import { contentChanged } from './content-changed.ts';
import { asRead } from '#shared/data/as-read.ts';
import type { Principal } from '#shared/auth/access-token.ts';
import { deleteAll } from '#shared/data/batch.ts';
import { bumpCounter, countOf } from '#shared/data/collection.ts';
import { checkItem, commitChange, deleteItem, orConflict, putItem, putNew, updateItem } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { notFound } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { getSite, listOfSite, siteItems, siteOfRecord } from '#areas/content/lookup.ts';
import { canonicalLocale } from '#areas/content/page-order.ts';
import {
  claims,
  nullable,
  type PostRecord,
  type PostTranslation,
  postItem,
  postKey,
  postTranslationItem,
  postTranslationKey,
  postView,
  siteKey,
  siteList,
  sk,
  splitPost,
  toPost,
} from '#areas/content/records.ts';
import { sanitizeHtml } from './sanitize.ts';
import type { Item } from '#shared/data/keys.ts';

export interface PostInput {
  slug: string;
  authorName: string;
  authorAvatarUrl?: string | null;
  featuredImageUrl?: string | null;
  category: string;
  tags: string[];
  isPublished: boolean;
  publishedAt?: string | null;
}

const SLUG_TAKEN = 'Another post of this site uses this slug';
const byLocale = (a: PostTranslation, b: PostTranslation) => a.locale.localeCompare(b.locale);

/** A published post without a date is published now; dates are kept in UTC. */
const publishedAt = (input: PostInput, was: string | null, now: string) =>
  input.publishedAt ? new Date(input.publishedAt).toISOString() : input.isPublished ? (was ?? now) : null;

async function getPost(siteId: string, postId: string) {
  const found = splitPost(await siteItems(siteId, sk.post(postId)));
  if (!found) throw notFound('Post');
  return found;
}

/** One Query of the site's partition: an unknown site has no posts, so it is a 404 too. */
export const postDetail = async (siteId: string, postId: string) => {
  const { post, translations } = await getPost(siteId, postId);
  return postView(post, translations.sort(byLocale));
};

export async function createPost(siteId: string, input: PostInput, actor: Principal) {
  const site = await getSite(siteId);
  const now = new Date().toISOString();
  const record: PostRecord = {
    id: crypto.randomUUID(),
    siteId: site.id,
    slug: input.slug,
    authorName: input.authorName,
    authorAvatarUrl: nullable(input.authorAvatarUrl),
    featuredImageUrl: nullable(input.featuredImageUrl),
    category: input.category,
    tags: [...new Set(input.tags)],
    isPublished: input.isPublished,
    publishedAt: publishedAt(input, null, now),
    locales: [],
    createdAt: now,
    updatedAt: now,
  };
  await commitChange(
    [
      putNew(postItem(record)),
      bumpCounter(siteList(site.id, 'POSTS'), 1),
      orConflict(putNew({ ...claims.postSlug(site.id, record.slug), postId: record.id }), SLUG_TAKEN),
      orConflict(checkItem(siteKey(site.id), 'attribute_exists(pk)'), 'The site was deleted meanwhile'),
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'BlogPost',
      entityId: record.id,
      action: 'create',
      changes: { siteId: site.id, slug: record.slug, isPublished: record.isPublished, publishedAt: record.publishedAt },
    },
    { now },
  );
  await contentChanged(site);
  return postView(record, []);
}

export async function updatePost(siteId: string, postId: string, input: PostInput, actor: Principal) {
  const site = await getSite(siteId);
  const { post: was, translations } = await getPost(site.id, postId);
  const now = new Date().toISOString();
  const next: PostRecord = {
    ...was,
    slug: input.slug,
    authorName: input.authorName,
    authorAvatarUrl: nullable(input.authorAvatarUrl),
    featuredImageUrl: nullable(input.featuredImageUrl),
    category: input.category,
    tags: [...new Set(input.tags)],
    isPublished: input.isPublished,
    publishedAt: publishedAt(input, was.publishedAt, now),
    updatedAt: now,
  };
  const moved = next.slug !== was.slug;
  await commitChange(
    [
      putItem(postItem(next), asRead(was, 'updatedAt')),
      moved && orConflict(putNew({ ...claims.postSlug(site.id, next.slug), postId: was.id }), SLUG_TAKEN),
      moved && deleteItem(claims.postSlug(site.id, was.slug)),
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'BlogPost',
      entityId: was.id,
      action: 'update',
      changes: {
        slug: next.slug,
        isPublished: next.isPublished,
        publishedAt: next.publishedAt,
        category: next.category,
      },
    },
    { now },
  );
  await contentChanged(site);
  return postView(next, translations.sort(byLocale));
}

export async function deletePost(siteId: string, postId: string, actor: Principal) {
  const site = await getSite(siteId);
  const { post, translations } = await getPost(site.id, postId);
  await deleteAll(translations.map((t) => postTranslationKey(site.id, post.id, t.locale)));
  await commitChange(
    [
      orConflict(deleteItem(postKey(site.id, post.id), 'attribute_exists(pk)'), 'The post was deleted meanwhile'),
      bumpCounter(siteList(site.id, 'POSTS'), -1),
      deleteItem(claims.postSlug(site.id, post.slug)),
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'BlogPost',
      entityId: post.id,
      action: 'delete',
      changes: { slug: post.slug, translations: translations.length },
    },
  );
  await contentChanged(site);
}

export interface PostTranslationInput {
  title: string;
  excerpt?: string | null;
  bodyHtml: string;
  bodyMarkdown?: string | null;
  metaTitle?: string | null;
  metaDescription?: string | null;
}

export async function translatePost(postId: string, locale: string, input: PostTranslationInput, actor: Principal) {
  const siteId = await siteOfRecord('post', postId, 'Post');
  const site = await getSite(siteId);
  const { post, translations } = await getPost(site.id, postId);
  const tag = canonicalLocale(locale);
  const now = new Date().toISOString();
  const translation: PostTranslation = {
    locale: tag,
    title: input.title,
    excerpt: nullable(input.excerpt),
    bodyHtml: await sanitizeHtml(input.bodyHtml),
    bodyMarkdown: nullable(input.bodyMarkdown),
    metaTitle: nullable(input.metaTitle),
    metaDescription: nullable(input.metaDescription),
    updatedAt: now,
  };
  const isNew = !post.locales.includes(tag);
  const changed = 'The post changed or was deleted meanwhile; try again';
  await commitChange(
    [
      putItem(postTranslationItem(site.id, post.id, translation)),
      // A new locale joins the post's `locales` conditioned on the post read, so a concurrent post
      // update (a full put) or translation cannot drop it: one of the two answers 409.
      orConflict(
        isNew
          ? updateItem(
              postKey(site.id, post.id),
              { locales: [...post.locales, tag], updatedAt: now },
              asRead(post, 'updatedAt'),
            )
          : checkItem(postKey(site.id, post.id), 'attribute_exists(pk)'),
        changed,
      ),
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'BlogTranslation',
      entityId: post.id,
      action: isNew ? 'create' : 'update',
      changes: { locale: tag, title: input.title },
    },
    { now },
  );
  await contentChanged(site);
  return postView(
    { ...post, locales: isNew ? [...post.locales, tag] : post.locales, updatedAt: isNew ? now : post.updatedAt },
    [...translations.filter((t) => t.locale !== tag), translation].sort(byLocale),
  );
}

export interface PostFilter {
  page: number;
  pageSize: number;
  category?: string;
  tag?: string;
  isPublished?: boolean;
}

/**
 * Newest first through the site's post list. Unfiltered: the counter and one Query up to the
 * page's end; filtered: the Query reads the site's posts through the filter to count the matches.
 */
export async function listPosts(siteId: string, q: PostFilter) {
  const { items, totalCount } = await listOfSite(siteId, (id) => postsOf(id, q));
  return toPage(
    items.map((p) => postView(p, [])),
    totalCount,
    q.page,
    q.pageSize,
  );
}

async function postsOf(siteId: string, q: PostFilter) {
  const pk = siteList(siteId, 'POSTS');
  const filters: string[] = [];
  const values: Item = { ':pk': pk };
  if (q.category !== undefined) {
    filters.push('category = :category');
    values[':category'] = q.category;
  }
  if (q.tag !== undefined) {
    filters.push('contains(tags, :tag)');
    values[':tag'] = q.tag;
  }
  if (q.isPublished !== undefined) {
    filters.push('isPublished = :pub');
    values[':pub'] = q.isPublished;
  }
  const start = (q.page - 1) * q.pageSize;
  const input = {
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: values,
    ScanIndexForward: false,
    ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
  };
  const [totalCount, items] = filters.length
    ? await queryItems(input).then((all) => [all.length, all] as const)
    : await Promise.all([countOf(pk), queryItems(input, start + q.pageSize)]);
  return { items: items.slice(start, start + q.pageSize).map(toPost), totalCount };
}
