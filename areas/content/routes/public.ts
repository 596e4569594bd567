import * as z from 'zod/mini';
import { FORM_MAX_BYTES, FORM_MAX_FIELDS, HONEYPOT_FIELD } from '#areas/content/vocabulary.ts';
import { domain, locale, siteParams, slug } from './fields.ts';
import { pageOf, paging, text, uuid } from '#shared/routes/schemas.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { notFound } from '#shared/http/errors.ts';

/** Public content: reads of a site's published content need no caller and are cacheable; form submissions. */
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
const slugParams = once(() => z.object({ siteId: uuid(), slug: slug() }));

const P = '/api/content/sites';
const publicRoute = { group: 'content-public', auth: { kind: 'none' }, scope: scope.public } as const;
/** A cacheable read: its ETag sent back in If-None-Match answers 304 without a body while it holds. */
const conditional = {
  alsoAnswers: [{ status: 304, when: 'If-None-Match holds the current ETag (no body)' }],
  headers: [{ name: 'If-None-Match', description: 'The ETag of an earlier answer' }],
} as const;

export const contentPublicRoutes = defineRoutes([
  {
    ...publicRoute,
    ...conditional,
    id: 'content.public.resolve',
    method: 'GET',
    path: `${P}/resolve`,
    summary: 'The active site of a domain (cached 5 minutes)',
    status: 200,
    errors: [notFound],
    schemas: () => ({ query: z.object({ domain: domain() }), response: publicSite() }),
  },
  {
    ...publicRoute,
    ...conditional,
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
    ...conditional,
    id: 'content.public.pages',
    method: 'GET',
    path: `${P}/{siteId}/pages`,
    summary:
      'Published pages in a locale (fallback: the site default), optionally the children of parentSlug ' +
      '(cached 2 minutes)',
    status: 200,
    schemas: () => ({
      params: siteParams(),
      query: z.object({ locale: z.optional(locale()), parentSlug: z.optional(slug()) }),
      response: z.array(publicPage()),
    }),
  },
  {
    ...publicRoute,
    ...conditional,
    id: 'content.public.page',
    method: 'GET',
    path: `${P}/{siteId}/pages/{slug}`,
    summary:
      'A published page by slug (a top-level page first); an unpublished one with a valid preview_token ' +
      '(cached 2 minutes, previews not cached)',
    status: 200,
    schemas: () => ({
      params: slugParams(),
      query: z.object({ locale: z.optional(locale()), preview_token: z.optional(z.string().check(z.maxLength(100))) }),
      response: publicPage(),
    }),
  },
  {
    ...publicRoute,
    ...conditional,
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
    ...conditional,
    id: 'content.public.post',
    method: 'GET',
    path: `${P}/{siteId}/blog/{slug}`,
    summary: 'A published post by slug (cached 2 minutes)',
    status: 200,
    schemas: () => ({
      params: slugParams(),
      query: z.object({ locale: z.optional(locale()) }),
      response: publicPost(),
    }),
  },
  {
    ...publicRoute,
    id: 'content.public.formSubmit',
    method: 'POST',
    path: `${P}/{siteId}/forms/submit`,
    summary:
      `Submit a form: {formType, fields} with fields a flat object of strings (at most ${FORM_MAX_FIELDS} ` +
      `keys, 64 KB); a non-empty "${HONEYPOT_FIELD}" field marks a bot`,
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
