import * as z from 'zod/mini';
import { defineRoutes, once } from './types.ts';
import { isoDateTime, optionalText, pageOf, paging, text, uuid } from './schemas.ts';

/**
 * Content: sites with theme, page tree with translations, blog, form submissions, media on S3,
 * navigation; admin routes are SystemAdmin only, public reads need no caller and are cacheable.
 */
const admin = { kind: 'bearer', roles: ['SystemAdmin'] } as const;
const open = { kind: 'none' } as const;

/** PageType values (documented in docs/decisions.md). */
export const PAGE_TYPES = ['Standard', 'Home', 'Landing', 'Contact', 'Legal', 'Custom'] as const;
/** FormSubmissionStatus values. */
export const FORM_STATUSES = ['New', 'Read', 'InProgress', 'Resolved', 'Archived', 'Spam'] as const;
export const FORM_SPAM = 5;
export const NAV_LOCATIONS = ['header', 'footer', 'sidebar'] as const;
export const NAV_MAX_DEPTH = 3;
/** A hidden form field real visitors leave empty; a value marks the submission as Spam. */
export const HONEYPOT_FIELD = '_honeypot';
export const FORM_MAX_FIELDS = 50;
export const FORM_MAX_BYTES = 64 * 1024;
export const MEDIA_MAX_BYTES = 10 * 1024 * 1024;
/** What a Lambda request carries: 6 MB of payload, base64-encoded, minus multipart framing. */
export const DIRECT_UPLOAD_MAX_BYTES = 4_400_000;
export const THEME_PRESETS = {
  classic: { primaryColor: '#1e3a8a', secondaryColor: '#f59e0b', fontFamily: 'Georgia, serif' },
  modern: { primaryColor: '#111827', secondaryColor: '#10b981', fontFamily: 'Inter, Helvetica, Arial, sans-serif' },
  warm: { primaryColor: '#9a3412', secondaryColor: '#fde68a', fontFamily: 'Merriweather, Georgia, serif' },
  ocean: { primaryColor: '#0e7490', secondaryColor: '#e0f2fe', fontFamily: 'Open Sans, Arial, sans-serif' },
} as const;
export type ThemePreset = keyof typeof THEME_PRESETS;

const enumInt = (values: readonly string[]) => z.int().check(z.minimum(0), z.maximum(values.length - 1));
const HOST = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;
export const domain = () =>
  z
    .string()
    .check(
      z.maxLength(253),
      z.regex(HOST, 'A lowercase host name such as www.example.com'),
      z.meta({ examples: ['www.example.com'] }),
    );
const isLocale = (v: string) => {
  try {
    return Intl.getCanonicalLocales(v).length === 1;
  } catch {
    return false;
  }
};
/** A BCP 47 language tag (en, en-US, pt-BR, zh-Hant-TW). */
export const locale = () =>
  z
    .string()
    .check(
      z.maxLength(35),
      z.regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/, 'A BCP 47 language tag such as en or en-US'),
      z.refine(isLocale, 'Not a valid BCP 47 language tag'),
    );
export const slug = () =>
  z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(100),
      z.regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'Lowercase letters, digits and single hyphens'),
    );
const parsesAsJson = (v: string) => {
  try {
    JSON.parse(v);
    return true;
  } catch {
    return false;
  }
};
/** A JSON document sent as a string (stored as sent, after proving it parses). */
export const jsonString = (max: number) =>
  z
    .string()
    .check(
      z.maxLength(max),
      z.regex(/^\s*[[{][\s\S]*[\]}]\s*$/, 'A JSON object or array'),
      z.refine(parsesAsJson, 'Not valid JSON'),
    );
/** An object, or a JSON string holding one; stored as an object. */
const objectOrJson = (max: number) =>
  z.pipe(
    z.union([z.record(z.string(), z.unknown()), jsonString(max)]),
    z.transform((v, ctx) => {
      const value = typeof v === 'string' ? JSON.parse(v) : v;
      if (!value || typeof value !== 'object' || Array.isArray(value)) {
        ctx.issues.push({ code: 'custom', input: v, message: 'Expected a JSON object' });
        return z.NEVER;
      }
      if (JSON.stringify(value).length > max) {
        ctx.issues.push({ code: 'custom', input: v, message: `At most ${max} characters of JSON` });
        return z.NEVER;
      }
      return value as Record<string, unknown>;
    }),
  );
const url = () =>
  z.optional(
    z.nullable(
      z.string().check(z.maxLength(2000), z.regex(/^(https?:\/\/|\/)[^\s<>"]*$/, 'An http(s) URL or a site path')),
    ),
  );
export const color = () =>
  z.string().check(z.regex(/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'A color as #rgb or #rrggbb'));
export const fontFamily = () =>
  z
    .string()
    .check(
      z.maxLength(100),
      z.regex(/^[A-Za-z0-9][A-Za-z0-9 ,-]{0,99}$/, 'Letters, digits, spaces, commas and hyphens'),
    );
const folder = () =>
  z._default(
    z.string().check(z.maxLength(50), z.regex(/^[a-z0-9][a-z0-9_-]{0,49}$/, 'Lowercase letters, digits, - and _')),
    'general',
  );
const boolQuery = () =>
  z.optional(
    z.pipe(
      z.enum(['true', 'false']),
      z.transform((v) => v === 'true'),
    ),
  );

export const siteBody = once(() =>
  z.object({
    tenantId: uuid(),
    domain: domain(),
    isMaster: z.boolean(),
    defaultLocale: locale(),
    themeConfig: objectOrJson(16_384),
    metadata: objectOrJson(16_384),
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
export const pageBody = once(() =>
  z
    .object({
      slug: slug(),
      pageType: enumInt(PAGE_TYPES),
      parentId: z.optional(z.nullable(uuid())),
      sortOrder: z.int().check(z.minimum(0), z.maximum(100_000)),
      isPublished: z.boolean(),
      settings: jsonString(16_384),
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
      ogImageUrl: url(),
      contentBlocks: jsonString(100_000),
    })
    .check(
      z.meta({
        examples: [
          {
            title: 'About us',
            metaTitle: 'About us',
            metaDescription: null,
            ogImageUrl: null,
            contentBlocks: '[{"type":"text","text":"Hello"}]',
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
    authorAvatarUrl: url(),
    featuredImageUrl: url(),
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
type NavItem = {
  label: string;
  pageId?: string | null | undefined;
  url?: string | null | undefined;
  children?: NavItem[] | undefined;
};
const navItem = once(
  (): z.ZodMiniType<NavItem> =>
    z.object({
      label: text(100),
      pageId: z.optional(z.nullable(uuid())),
      url: url(),
      get children() {
        return z.optional(z.array(navItem()).check(z.maxLength(50)));
      },
    }),
);
const menu = once(() =>
  z.object({
    location: z.string(),
    items: z.array(z.record(z.string(), z.unknown())),
    updatedAt: z.nullable(z.string()),
  }),
);
const publicSite = once(() =>
  z.object({
    id: z.string(),
    domain: z.string(),
    isMaster: z.boolean(),
    defaultLocale: z.string(),
    themeConfig: z.record(z.string(), z.unknown()),
    metadata: z.record(z.string(), z.unknown()),
  }),
);
const publicPage = once(() =>
  z.object({
    id: z.string(),
    slug: z.string(),
    pageType: z.number(),
    parentId: z.nullable(z.string()),
    sortOrder: z.number(),
    settings: z.string(),
    locale: z.nullable(z.string()),
    title: z.nullable(z.string()),
    metaTitle: z.nullable(z.string()),
    metaDescription: z.nullable(z.string()),
    ogImageUrl: z.nullable(z.string()),
    contentBlocks: z.nullable(z.string()),
  }),
);
const publicPost = once(() =>
  z.object({
    id: z.string(),
    slug: z.string(),
    authorName: z.string(),
    authorAvatarUrl: z.nullable(z.string()),
    featuredImageUrl: z.nullable(z.string()),
    category: z.string(),
    tags: z.array(z.string()),
    publishedAt: z.nullable(z.string()),
    locale: z.nullable(z.string()),
    title: z.nullable(z.string()),
    excerpt: z.nullable(z.string()),
    bodyHtml: z.nullable(z.string()),
    metaTitle: z.nullable(z.string()),
    metaDescription: z.nullable(z.string()),
  }),
);

const siteParams = once(() => z.object({ siteId: uuid() }));
const idParams = once(() => z.object({ id: uuid() }));
const sitePageParams = once(() => z.object({ siteId: uuid(), id: uuid() }));
const postParams = once(() => z.object({ siteId: uuid(), postId: uuid() }));
const A = '/api/content/admin';
const P = '/api/content/sites';
const adminRoute = { group: 'content-admin', auth: admin } as const;
const publicRoute = { group: 'content-public', auth: open } as const;
const localeQuery = once(() => z.object({ locale: z.optional(locale()) }));

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
      'Create a site for a tenant: domain unique across the platform (409), one master site per tenant (409); themeConfig and metadata as objects or JSON strings',
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
    summary: `Apply a named theme preset: body {"preset": one of ${Object.keys(THEME_PRESETS).join(', ')}}`,
    status: 200,
    schemas: () => ({
      params: siteParams(),
      body: z.object({ preset: z.enum(Object.keys(THEME_PRESETS) as [ThemePreset, ...ThemePreset[]]) }),
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
      'Check a slug: {isValid (format), isAvailable (free among the siblings under parentId, excluding excludePageId), message}',
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
    summary: 'Create or replace the translation of a page in a locale (BCP 47); contentBlocks a JSON string',
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
    summary: 'Posts of a site, newest first, filtered by category, tag and isPublished',
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
      'Create or replace the translation of a post; bodyHtml is sanitized (see docs/decisions.md for the tags kept)',
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
    summary: `Form submissions of a site, newest first; status (${FORM_STATUSES.map((s, i) => `${i} ${s}`).join(', ')}) and formType filters`,
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
    summary: `Upload a file (multipart part "file") up to ${DIRECT_UPLOAD_MAX_BYTES} bytes: images, PDF, office documents, text (others 415, checked by content); larger files up to 10 MB go through media/presigned-upload`,
    status: 201,
    bodyType: 'multipart',
    maxBodyBytes: DIRECT_UPLOAD_MAX_BYTES + 64 * 1024,
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
      'Start an upload of up to 10 MB straight to S3: PUT the file to uploadUrl with the headers given, then POST media/{id}/complete',
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
      'Finish a presigned upload: the object is checked (size, content type by its bytes) and the media becomes ready; a bad file is deleted (413/415)',
    status: 200,
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
    summary: `Replace a menu (location header, footer or sidebar): body {"items": [{label, pageId | url, children}]}, at most ${NAV_MAX_DEPTH} levels, pages of the same site`,
    status: 200,
    schemas: () => ({
      params: z.object({ siteId: uuid(), location: z.string().check(z.maxLength(20)) }),
      body: z.object({ items: z.array(navItem()).check(z.maxLength(50)) }),
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
    schemas: () => ({
      body: z.object({ siteId: uuid() }),
      response: z.object({ siteId: z.string(), cacheVersion: z.number() }),
    }),
  },
]);

export const contentPublicRoutes = defineRoutes([
  {
    ...publicRoute,
    id: 'content.public.resolve',
    method: 'GET',
    path: `${P}/resolve`,
    summary: 'The active site of a domain (cached 5 minutes)',
    status: 200,
    schemas: () => ({ query: z.object({ domain: domain() }), response: publicSite() }),
  },
  {
    ...publicRoute,
    id: 'content.public.themeCss',
    method: 'GET',
    path: `${P}/{siteId}/theme.css`,
    summary: 'The theme as CSS custom properties (cached 5 minutes)',
    status: 200,
    rawResponse: { contentType: 'text/css' },
    schemas: () => ({ params: siteParams() }),
  },
  {
    ...publicRoute,
    id: 'content.public.pages',
    method: 'GET',
    path: `${P}/{siteId}/pages`,
    summary:
      'Published pages in a locale (fallback: the site default), optionally the children of parentSlug (cached 2 minutes)',
    status: 200,
    schemas: () => ({
      params: siteParams(),
      query: z.object({ locale: z.optional(locale()), parentSlug: z.optional(slug()) }),
      response: z.array(publicPage()),
    }),
  },
  {
    ...publicRoute,
    id: 'content.public.page',
    method: 'GET',
    path: `${P}/{siteId}/pages/{slug}`,
    summary:
      'A published page by slug (a top-level page first); an unpublished one with a valid preview_token (cached 2 minutes, previews not cached)',
    status: 200,
    schemas: () => ({
      params: z.object({ siteId: uuid(), slug: slug() }),
      query: z.object({ locale: z.optional(locale()), preview_token: z.optional(z.string().check(z.maxLength(100))) }),
      response: publicPage(),
    }),
  },
  {
    ...publicRoute,
    id: 'content.public.blog',
    method: 'GET',
    path: `${P}/{siteId}/blog`,
    summary: 'Published posts (publishedAt in the past), newest first, in a locale (cached 2 minutes)',
    status: 200,
    schemas: () => ({
      params: siteParams(),
      query: z.object({
        ...paging(),
        locale: z.optional(locale()),
        category: z.optional(text(100)),
        tag: z.optional(text(50)),
      }),
      response: pageOf(publicPost()),
    }),
  },
  {
    ...publicRoute,
    id: 'content.public.post',
    method: 'GET',
    path: `${P}/{siteId}/blog/{slug}`,
    summary: 'A published post by slug (cached 2 minutes)',
    status: 200,
    schemas: () => ({
      params: z.object({ siteId: uuid(), slug: slug() }),
      query: localeQuery(),
      response: publicPost(),
    }),
  },
  {
    ...publicRoute,
    id: 'content.public.formSubmit',
    method: 'POST',
    path: `${P}/{siteId}/forms/submit`,
    summary: `Submit a form: {formType, fields} with fields a flat object of strings (at most ${FORM_MAX_FIELDS} keys, 64 KB); a non-empty "${HONEYPOT_FIELD}" field marks a bot`,
    status: 201,
    maxBodyBytes: FORM_MAX_BYTES + 4096,
    rateLimit: { name: 'content-form-submit', limit: 60, windowSeconds: 60 },
    schemas: () => ({
      params: siteParams(),
      body: z.object({
        formType: z
          .string()
          .check(z.minLength(1), z.maxLength(50), z.regex(/^[A-Za-z0-9_-]+$/, 'Letters, digits, - and _')),
        fields: z
          .record(z.string().check(z.minLength(1), z.maxLength(100)), z.string().check(z.maxLength(FORM_MAX_BYTES)))
          .check(
            z.refine((f) => Object.keys(f).length <= FORM_MAX_FIELDS, `At most ${FORM_MAX_FIELDS} fields`),
            z.refine((f) => Buffer.byteLength(JSON.stringify(f)) <= FORM_MAX_BYTES, 'At most 64 KB of fields'),
          ),
      }),
      response: z.object({ id: z.string(), formType: z.string(), createdAt: z.string() }),
    }),
  },
]);

export const contentRoutes = [...contentAdminRoutes, ...contentPublicRoutes] as const;
