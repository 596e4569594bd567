import * as z from 'zod/mini';
import {
  BLOCKS_MAX,
  COLOR,
  DIRECT_UPLOAD_MAX_BYTES,
  DIRECT_UPLOAD_TOO_LARGE,
  FOLDER,
  FONT_FAMILY,
  FORM_STATUSES,
  NAV_LOCATIONS,
  NAV_MAX_DEPTH,
  NAV_MAX_ITEMS,
  PAGE_TYPES,
  SETTINGS_MAX,
  SITE_JSON_MAX,
  THEME_PRESET_NAMES,
} from '#areas/content/vocabulary.ts';
import { contentJson, domain, locale, objectOrJson, siteParams, siteUrl, slug } from './fields.ts';
import { isoDateTime, optionalText, pageOf, paging, text, uuid } from '#shared/routes/schemas.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { notFound, payloadTooLarge, unsupportedMediaType } from '#shared/http/errors.ts';

/**
 * Content administration: sites with theme, page tree with translations, blog, form submissions,
 * media on S3, navigation. SystemAdmin only; content is platform data (a site names its tenant).
 */
const enumInt = (values: readonly string[]) => z.int().check(z.minimum(0), z.maximum(values.length - 1));
const color = () => z.string().check(z.regex(COLOR, 'A color as #rgb or #rrggbb'));
const fontFamily = () =>
  z.string().check(z.maxLength(100), z.regex(FONT_FAMILY, 'Letters, digits, spaces, commas and hyphens'));
const folder = () => z._default(z.string().check(z.regex(FOLDER, 'Lowercase letters, digits, - and _')), 'general');
const boolQuery = () =>
  z.optional(
    z.pipe(
      z.enum(['true', 'false']),
      z.transform((v) => v === 'true'),
    ),
  );

const BLOCKS_FORMAT =
  'A JSON array of blocks, each an object with a lowercase `type`; a string field named `html` ' +
  'is sanitized like a post body, fields named `url`, `href`, `src` or ending in `Url` are http(s) ' +
  'URLs or site paths, and other strings may not hold markup (`<` followed by a letter, `/`, ' +
  '`!` or `?`). At most 16 levels.';
const SETTINGS_FORMAT =
  'A JSON object or array; the same string rules as contentBlocks (`html` fields sanitized, links ' +
  'checked, no markup in other strings). At most 16 levels.';

const siteBody = once(() =>
  z.object({
    tenantId: uuid(),
    domain: domain(),
    isMaster: z.boolean(),
    defaultLocale: locale(),
    themeConfig: objectOrJson(SITE_JSON_MAX),
    metadata: objectOrJson(SITE_JSON_MAX),
    isActive: z.boolean(),
  }),
);
const site = once(() =>
  z.object({
    id: z.string(),
    tenantId: z.string(),
    domain: z.string(),
    isMaster: z.boolean(),
    defaultLocale: z.string(),
    themeConfig: z.record(z.string(), z.unknown()),
    metadata: z.record(z.string(), z.unknown()),
    isActive: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
const theme = once(() =>
  z.object({
    primaryColor: z.string(),
    secondaryColor: z.string(),
    fontFamily: z.string(),
    preset: z.nullable(z.string()),
  }),
);
const pageBody = once(() =>
  z
    .object({
      slug: slug(),
      pageType: enumInt(PAGE_TYPES),
      parentId: z.optional(z.nullable(uuid())),
      sortOrder: z.int().check(z.minimum(0), z.maximum(100_000)),
      isPublished: z.boolean(),
      settings: contentJson(SETTINGS_MAX, 'settings', SETTINGS_FORMAT),
    })
    .check(
      z.meta({
        examples: [
          {
            slug: 'about-us',
            pageType: 0,
            parentId: null,
            sortOrder: 1,
            isPublished: true,
            settings: '{"layout":"wide"}',
          },
        ],
      }),
    ),
);
const pageTranslationBody = once(() =>
  z
    .object({
      title: text(200),
      metaTitle: optionalText(200),
      metaDescription: optionalText(500),
      ogImageUrl: siteUrl(),
      contentBlocks: contentJson(BLOCKS_MAX, 'blocks', BLOCKS_FORMAT),
    })
    .check(
      z.meta({
        examples: [
          {
            title: 'About us',
            metaTitle: 'About us',
            metaDescription: null,
            ogImageUrl: null,
            contentBlocks: '[{"type":"text","text":"Hello"},{"type":"rich-text","html":"<p>Hi <b>there</b></p>"}]',
          },
        ],
      }),
    ),
);
const pageTranslation = once(() =>
  z.object({
    locale: z.string(),
    title: z.string(),
    metaTitle: z.nullable(z.string()),
    metaDescription: z.nullable(z.string()),
    ogImageUrl: z.nullable(z.string()),
    contentBlocks: z.string(),
    updatedAt: z.string(),
  }),
);
const page = once(() =>
  z.object({
    id: z.string(),
    siteId: z.string(),
    slug: z.string(),
    pageType: z.number(),
    parentId: z.nullable(z.string()),
    sortOrder: z.number(),
    isPublished: z.boolean(),
    settings: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    translations: z.array(pageTranslation()),
  }),
);
type PageNode = z.infer<ReturnType<typeof page>> & { children: PageNode[] };
const pageNode = once(
  (): z.ZodMiniType<PageNode> =>
    z.object({
      ...page().shape,
      get children() {
        return z.array(pageNode());
      },
    }),
);
const postBody = once(() =>
  z.object({
    slug: slug(),
    authorName: text(200),
    authorAvatarUrl: siteUrl(),
    featuredImageUrl: siteUrl(),
    category: text(100),
    tags: z.array(text(50)).check(z.maxLength(20)),
    isPublished: z.boolean(),
    publishedAt: z.optional(z.nullable(isoDateTime())),
  }),
);
const postTranslationBody = once(() =>
  z.object({
    title: text(300),
    excerpt: optionalText(2000),
    bodyHtml: z.string().check(z.minLength(1), z.maxLength(100_000)),
    bodyMarkdown: optionalText(100_000),
    metaTitle: optionalText(200),
    metaDescription: optionalText(500),
  }),
);
const postTranslation = once(() =>
  z.object({
    locale: z.string(),
    title: z.string(),
    excerpt: z.nullable(z.string()),
    bodyHtml: z.string(),
    bodyMarkdown: z.nullable(z.string()),
    metaTitle: z.nullable(z.string()),
    metaDescription: z.nullable(z.string()),
    updatedAt: z.string(),
  }),
);
const post = once(() =>
  z.object({
    id: z.string(),
    siteId: z.string(),
    slug: z.string(),
    authorName: z.string(),
    authorAvatarUrl: z.nullable(z.string()),
    featuredImageUrl: z.nullable(z.string()),
    category: z.string(),
    tags: z.array(z.string()),
    isPublished: z.boolean(),
    publishedAt: z.nullable(z.string()),
    /** The locales the post is translated into (lists carry these, not the translations). */
    locales: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
    translations: z.array(postTranslation()),
  }),
);
const form = once(() =>
  z.object({
    id: z.string(),
    siteId: z.string(),
    formType: z.string(),
    fields: z.record(z.string(), z.string()),
    status: z.number(),
    internalNotes: z.nullable(z.string()),
    isSpam: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
const media = once(() =>
  z.object({
    id: z.string(),
    siteId: z.string(),
    folder: z.string(),
    fileName: z.string(),
    contentType: z.string(),
    size: z.number(),
    status: z.string(),
    key: z.string(),
    url: z.string(),
    createdAt: z.string(),
  }),
);
type NavInput = {
  label: string;
  pageId?: string | null | undefined;
  url?: string | null | undefined;
  children?: NavInput[] | undefined;
};
const navInput = once(
  (): z.ZodMiniType<NavInput> =>
    z.object({
      label: text(100),
      pageId: z.optional(z.nullable(uuid())),
      url: siteUrl(),
      get children() {
        return z.optional(z.array(navInput()).check(z.maxLength(NAV_MAX_ITEMS)));
      },
    }),
);
type NavItem = { label: string; pageId: string | null; url: string | null; children: NavItem[] };
const navItem = once(
  (): z.ZodMiniType<NavItem> =>
    z.object({
      label: z.string(),
      pageId: z.nullable(z.string()),
      url: z.nullable(z.string()),
      get children() {
        return z.array(navItem());
      },
    }),
);
const menu = once(() =>
  z.object({
    location: z.string(),
    items: z.array(navItem()),
    updatedAt: z.nullable(z.string()),
  }),
);

const idParams = once(() => z.object({ id: uuid() }));
const sitePageParams = once(() => z.object({ siteId: uuid(), id: uuid() }));
const postParams = once(() => z.object({ siteId: uuid(), postId: uuid() }));
const A = '/api/content/admin';
const adminRoute = {
  group: 'content-admin',
  auth: { kind: 'bearer', roles: ['SystemAdmin'] },
  scope: scope.platform,
} as const;

export const contentAdminRoutes = defineRoutes([
  {
    ...adminRoute,
    id: 'content.sites.list',
    method: 'GET',
    path: `${A}/sites`,
    summary: 'List sites, newest first',
    status: 200,
    schemas: () => ({ query: z.object(paging()), response: pageOf(site()) }),
  },
  {
    ...adminRoute,
    id: 'content.sites.get',
    method: 'GET',
    path: `${A}/sites/{id}`,
    summary: 'A site',
    status: 200,
    schemas: () => ({ params: idParams(), response: site() }),
  },
  {
    ...adminRoute,
    id: 'content.sites.create',
    method: 'POST',
    path: `${A}/sites`,
    summary:
      'Create a site for a tenant: domain unique across the platform (409), one master site per tenant ' +
      '(409); themeConfig and metadata as objects or JSON strings (16 KB, 16 levels each)',
    status: 201,
    schemas: () => ({
      body: siteBody(),
      response: site(),
    }),
  },
  {
    ...adminRoute,
    id: 'content.sites.update',
    method: 'PUT',
    path: `${A}/sites/{id}`,
    summary: 'Replace a site (same rules as create; the tenant cannot change)',
    status: 200,
    schemas: () => ({ params: idParams(), body: siteBody(), response: site() }),
  },
  {
    ...adminRoute,
    id: 'content.sites.delete',
    method: 'DELETE',
    path: `${A}/sites/{id}`,
    summary: 'Delete a site with its pages, translations, posts, forms, navigation and media (S3 objects too)',
    status: 204,
    schemas: () => ({ params: idParams() }),
  },
  {
    ...adminRoute,
    id: 'content.theme.get',
    method: 'GET',
    path: `${A}/sites/{siteId}/theme`,
    summary: 'The theme of a site (defaults where unset)',
    status: 200,
    schemas: () => ({ params: siteParams(), response: theme() }),
  },
  {
    ...adminRoute,
    id: 'content.theme.put',
    method: 'PUT',
    path: `${A}/sites/{siteId}/theme`,
    summary: 'Set theme colors (#rgb or #rrggbb) and font family; absent fields stay',
    status: 200,
    schemas: () => ({
      params: siteParams(),
      body: z.object({
        primaryColor: z.optional(color()),
        secondaryColor: z.optional(color()),
        fontFamily: z.optional(fontFamily()),
      }),
      response: theme(),
    }),
  },
  {
    ...adminRoute,
    id: 'content.theme.preset',
    method: 'POST',
    path: `${A}/sites/{siteId}/theme/preset`,
    summary: `Apply a named theme preset: body {"preset": one of ${THEME_PRESET_NAMES.join(', ')}}`,
    status: 200,
    schemas: () => ({
      params: siteParams(),
      body: z.object({ preset: z.enum(THEME_PRESET_NAMES) }),
      response: theme(),
    }),
  },
  {
    ...adminRoute,
    id: 'content.pages.tree',
    method: 'GET',
    path: `${A}/sites/{siteId}/pages`,
    summary: 'The page tree of a site (siblings by sortOrder, then slug)',
    status: 200,
    schemas: () => ({ params: siteParams(), response: z.array(pageNode()) }),
  },
  {
    ...adminRoute,
    id: 'content.pages.validateSlug',
    method: 'GET',
    path: `${A}/sites/{siteId}/pages/validate-slug`,
    summary:
      'Check a slug: {isValid (format), isAvailable (free among the siblings under parentId, excluding ' +
      'excludePageId), message}',
    status: 200,
    schemas: () => ({
      params: siteParams(),
      query: z.object({
        slug: z.string().check(z.maxLength(200)),
        excludePageId: z.optional(uuid()),
        parentId: z.optional(uuid()),
      }),
      response: z.object({ isValid: z.boolean(), isAvailable: z.boolean(), message: z.string() }),
    }),
  },
  {
    ...adminRoute,
    id: 'content.pages.get',
    method: 'GET',
    path: `${A}/sites/{siteId}/pages/{id}`,
    summary: 'A page with its translations',
    status: 200,
    schemas: () => ({ params: sitePageParams(), response: page() }),
  },
  {
    ...adminRoute,
    id: 'content.pages.create',
    method: 'POST',
    path: `${A}/sites/{siteId}/pages`,
    summary: 'Create a page: parentId a page of the same site, slug unique among its siblings (409)',
    status: 201,
    schemas: () => ({
      params: siteParams(),
      body: pageBody(),
      response: page(),
    }),
  },
  {
    ...adminRoute,
    id: 'content.pages.update',
    method: 'PUT',
    path: `${A}/sites/{siteId}/pages/{id}`,
    summary: 'Replace a page; a parent that is the page or one of its descendants is 400',
    status: 200,
    schemas: () => ({ params: sitePageParams(), body: pageBody(), response: page() }),
  },
  {
    ...adminRoute,
    id: 'content.pages.publish',
    method: 'PATCH',
    path: `${A}/sites/{siteId}/pages/{id}/publish`,
    summary: 'Toggle the publication flag',
    status: 200,
    schemas: () => ({ params: sitePageParams(), response: page() }),
  },
  {
    ...adminRoute,
    id: 'content.pages.delete',
    method: 'DELETE',
    path: `${A}/sites/{siteId}/pages/{id}`,
    summary: 'Delete a page and its translations (a page with child pages is 409)',
    status: 204,
    schemas: () => ({ params: sitePageParams() }),
  },
  {
    ...adminRoute,
    id: 'content.pages.translate',
    method: 'PUT',
    path: `${A}/pages/{pageId}/translations/{locale}`,
    summary:
      'Create or replace the translation of a page in a locale (BCP 47); contentBlocks a JSON string ' +
      'of blocks whose html fields are sanitized',
    status: 200,
    schemas: () => ({
      params: z.object({ pageId: uuid(), locale: locale() }),
      body: pageTranslationBody(),
      response: page(),
    }),
  },
  {
    ...adminRoute,
    id: 'content.pages.previewToken',
    method: 'POST',
    path: `${A}/pages/{pageId}/preview-token`,
    summary: 'A preview token for one page (no body): pass it as preview_token to read the page unpublished',
    status: 201,
    schemas: () => ({
      params: z.object({ pageId: uuid() }),
      response: z.object({ token: z.string(), pageId: z.string(), expiresAt: z.string() }),
    }),
  },
  {
    ...adminRoute,
    id: 'content.blog.create',
    method: 'POST',
    path: `${A}/sites/{siteId}/blog`,
    summary: 'Create a blog post (slug unique per site, 409); published without publishedAt means now',
    status: 201,
    schemas: () => ({ params: siteParams(), body: postBody(), response: post() }),
  },
  {
    ...adminRoute,
    id: 'content.blog.list',
    method: 'GET',
    path: `${A}/sites/{siteId}/blog`,
    summary:
      'Posts of a site, newest first, filtered by category, tag and isPublished; items name their ' +
      'translated locales (translations empty: read a post for them)',
    status: 200,
    schemas: () => ({
      params: siteParams(),
      query: z.object({
        ...paging(),
        category: z.optional(text(100)),
        tag: z.optional(text(50)),
        isPublished: boolQuery(),
      }),
      response: pageOf(post()),
    }),
  },
  {
    ...adminRoute,
    id: 'content.blog.get',
    method: 'GET',
    path: `${A}/sites/{siteId}/blog/{postId}`,
    summary: 'A post with its translations',
    status: 200,
    schemas: () => ({ params: postParams(), response: post() }),
  },
  {
    ...adminRoute,
    id: 'content.blog.update',
    method: 'PUT',
    path: `${A}/sites/{siteId}/blog/{postId}`,
    summary: 'Replace a post',
    status: 200,
    schemas: () => ({ params: postParams(), body: postBody(), response: post() }),
  },
  {
    ...adminRoute,
    id: 'content.blog.delete',
    method: 'DELETE',
    path: `${A}/sites/{siteId}/blog/{postId}`,
    summary: 'Delete a post and its translations',
    status: 204,
    schemas: () => ({ params: postParams() }),
  },
  {
    ...adminRoute,
    id: 'content.blog.translate',
    method: 'PUT',
    path: `${A}/blog/{postId}/translations/{locale}`,
    summary:
      'Create or replace the translation of a post; bodyHtml is sanitized (see docs/decisions/content.md, "Blog", for the tags kept)',
    status: 200,
    schemas: () => ({
      params: z.object({ postId: uuid(), locale: locale() }),
      body: postTranslationBody(),
      response: post(),
    }),
  },
  {
    ...adminRoute,
    id: 'content.forms.list',
    method: 'GET',
    path: `${A}/sites/{siteId}/forms`,
    summary:
      `Form submissions of a site, newest first; status (${FORM_STATUSES.map((s, i) => `${i} ${s}`).join(', ')}) ` +
      `and formType filters`,
    status: 200,
    schemas: () => ({
      params: siteParams(),
      query: z.object({
        ...paging(),
        status: z.optional(
          z.pipe(z.string().check(z.regex(/^[0-5]$/, `One of 0-${FORM_STATUSES.length - 1}`)), z.transform(Number)),
        ),
        formType: z.optional(text(50)),
      }),
      response: pageOf(form()),
    }),
  },
  {
    ...adminRoute,
    id: 'content.forms.get',
    method: 'GET',
    path: `${A}/forms/{id}`,
    summary: 'A form submission',
    status: 200,
    schemas: () => ({ params: idParams(), response: form() }),
  },
  {
    ...adminRoute,
    id: 'content.forms.status',
    method: 'PATCH',
    path: `${A}/forms/{id}/status`,
    summary: 'Set the status of a form submission, with internal notes',
    status: 200,
    schemas: () => ({
      params: idParams(),
      body: z.object({ status: enumInt(FORM_STATUSES), internalNotes: optionalText(4000) }),
      response: form(),
    }),
  },
  {
    ...adminRoute,
    id: 'content.media.upload',
    method: 'POST',
    path: `${A}/sites/{siteId}/media/upload`,
    summary:
      `Upload a file (multipart part "file") up to ${DIRECT_UPLOAD_MAX_BYTES} bytes: images, PDF, ` +
      `office documents, text (others 415, checked by content); larger files up to 10 MB go through ` +
      `media/presigned-upload`,
    status: 201,
    bodyType: 'multipart',
    maxBodyBytes: DIRECT_UPLOAD_MAX_BYTES + 64 * 1024,
    tooLargeMessage: DIRECT_UPLOAD_TOO_LARGE,
    schemas: () => ({
      params: siteParams(),
      query: z.object({ folder: folder() }),
      response: z.object({ id: z.string(), url: z.string() }),
    }),
  },
  {
    ...adminRoute,
    id: 'content.media.presignUpload',
    method: 'POST',
    path: `${A}/sites/{siteId}/media/presigned-upload`,
    summary:
      'Start an upload of up to 10 MB straight to S3: PUT the file to uploadUrl with the headers ' +
      'given, then POST media/{id}/complete',
    status: 201,
    schemas: () => ({
      params: siteParams(),
      body: z
        .object({
          fileName: text(200),
          contentType: z.string().check(z.maxLength(100), z.regex(/^[a-z]+\/[a-z0-9.+-]+$/, 'A MIME type')),
          size: z.int().check(z.minimum(1)),
          folder: folder(),
        })
        .check(
          z.meta({
            examples: [
              { fileName: 'brochure.pdf', contentType: 'application/pdf', size: 7340032, folder: 'documents' },
            ],
          }),
        ),
      response: z.object({
        id: z.string(),
        uploadUrl: z.string(),
        method: z.string(),
        headers: z.record(z.string(), z.string()),
        expiresAt: z.string(),
      }),
    }),
  },
  {
    ...adminRoute,
    id: 'content.media.complete',
    method: 'POST',
    path: `${A}/media/{id}/complete`,
    summary:
      'Finish a presigned upload: the uploaded object is checked (size, content type by its bytes) ' +
      'and copied where the media is served, and the media becomes ready; a bad file is deleted (413/415)',
    status: 200,
    errors: [payloadTooLarge, unsupportedMediaType],
    schemas: () => ({
      params: idParams(),
      response: media(),
    }),
  },
  {
    ...adminRoute,
    id: 'content.media.list',
    method: 'GET',
    path: `${A}/sites/{siteId}/media`,
    summary: 'Media of a site, newest first, optionally of one folder',
    status: 200,
    schemas: () => ({
      params: siteParams(),
      query: z.object({ ...paging(), folder: z.optional(z.string().check(z.maxLength(50))) }),
      response: pageOf(media()),
    }),
  },
  {
    ...adminRoute,
    id: 'content.media.delete',
    method: 'DELETE',
    path: `${A}/media/{id}`,
    summary: 'Delete a media record and its S3 object',
    status: 204,
    schemas: () => ({ params: idParams() }),
  },
  {
    ...adminRoute,
    id: 'content.media.presigned',
    method: 'GET',
    path: `${A}/media/{id}/presigned`,
    summary: 'A presigned GET address of a media object, valid expiryMinutes (1-1440, default 60)',
    status: 200,
    schemas: () => ({
      params: idParams(),
      query: z.object({
        expiryMinutes: z._default(
          z.pipe(
            z.string().check(z.regex(/^\d{1,4}$/, 'A whole number')),
            z.pipe(z.transform(Number), z.int().check(z.minimum(1), z.maximum(1440))),
          ),
          60,
        ),
      }),
      response: z.object({ url: z.string(), expiresAt: z.string() }),
    }),
  },
  {
    ...adminRoute,
    id: 'content.navigation.get',
    method: 'GET',
    path: `${A}/sites/{siteId}/navigation`,
    summary: 'The header, footer and sidebar menus of a site',
    status: 200,
    schemas: () => ({ params: siteParams(), response: z.array(menu()) }),
  },
  {
    ...adminRoute,
    id: 'content.navigation.put',
    method: 'PUT',
    path: `${A}/sites/{siteId}/navigation/{location}`,
    summary:
      `Replace a menu (location ${NAV_LOCATIONS.join(', ')}): body {"items": [{label, pageId | url, ` +
      `children}]}, at most ${NAV_MAX_DEPTH} levels, pages of the same site`,
    status: 200,
    schemas: () => ({
      params: z.object({ siteId: uuid(), location: z.string().check(z.maxLength(20)) }),
      body: z.object({ items: z.array(navInput()).check(z.maxLength(NAV_MAX_ITEMS)) }),
      response: menu(),
    }),
  },
  {
    ...adminRoute,
    id: 'content.cache.invalidate',
    method: 'POST',
    path: `${A}/cache/invalidate`,
    summary: 'Make the next public reads of a site fresh: body {"siteId"}; every ETag of the site changes',
    status: 200,
    errors: [notFound],
    schemas: () => ({
      body: z.object({ siteId: uuid() }),
      response: z.object({ siteId: z.string(), cacheVersion: z.number() }),
    }),
  },
]);
