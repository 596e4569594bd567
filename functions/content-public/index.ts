import { reply } from '#shared/http/responses.ts';
import { contentPublicRoutes } from '#areas/content/routes/public.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { submitForm } from '#areas/content/public/submit-form.ts';
import {
  activeSite,
  cacheable,
  cacheableCss,
  CONTENT_MAX_AGE,
  css,
  pageBySlug,
  postBySlug,
  publishedPages,
  publishedPosts,
  resolveDomain,
  SITE_MAX_AGE,
} from '#areas/content/public/reads.ts';

/** Public content: no caller; reads are cacheable (Cache-Control public, ETag, 304). */
export const handler = apiHandler(contentPublicRoutes, {
  'content.public.resolve': async ({ query, headers }) => {
    const { site, view } = await resolveDomain(query.domain);
    return cacheable(site, headers, SITE_MAX_AGE, view);
  },
  'content.public.themeCss': async ({ params, headers }) => {
    const site = await activeSite(params.siteId);
    return cacheableCss(site, headers, SITE_MAX_AGE, css(site));
  },
  'content.public.pages': async ({ params, query, headers }) => {
    const site = await activeSite(params.siteId);
    return cacheable(site, headers, CONTENT_MAX_AGE, await publishedPages(site, query));
  },
  'content.public.page': async ({ params, query, headers }) => {
    const site = await activeSite(params.siteId);
    const { preview, view } = await pageBySlug(site, params.slug, query);
    // A preview shows unpublished content: never kept by a shared cache.
    return preview
      ? reply.json(view, { headers: { 'cache-control': 'private, no-store' } })
      : cacheable(site, headers, CONTENT_MAX_AGE, view);
  },
  'content.public.blog': async ({ params, query, headers }) => {
    const site = await activeSite(params.siteId);
    return cacheable(site, headers, CONTENT_MAX_AGE, await publishedPosts(site, query));
  },
  'content.public.post': async ({ params, query, headers }) => {
    const site = await activeSite(params.siteId);
    return cacheable(site, headers, CONTENT_MAX_AGE, await postBySlug(site, params.slug, query.locale));
  },
  'content.public.formSubmit': async ({ params, body }) => await submitForm(params.siteId, body),
});
