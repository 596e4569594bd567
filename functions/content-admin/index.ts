import { createPost, deletePost, listPosts, postDetail, translatePost, updatePost } from '#areas/content/admin/blog.ts';
import { getForm, listForms, setFormStatus } from '#areas/content/admin/forms.ts';
import {
  completeUpload,
  deleteMedia,
  listMedia,
  presignedGet,
  presignUpload,
  uploadDirect,
} from '#areas/content/admin/media.ts';
import { invalidateCache, menus, putMenu } from '#areas/content/admin/navigation.ts';
import {
  createPage,
  deletePage,
  getPage,
  pageTree,
  previewToken,
  togglePublish,
  translatePage,
  updatePage,
  validateSlug,
} from '#areas/content/admin/pages.ts';
import { createSite, deleteSite, getSiteView, listSites, updateSite } from '#areas/content/admin/sites.ts';
import { applyPreset, getTheme, putTheme } from '#areas/content/admin/theme.ts';
import { contentAdminRoutes } from '#areas/content/routes/admin.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { on } from '#shared/data/events.ts';
import { SITE_CONTENT_CHANGED } from '#areas/content/events.ts';
import { queueSiteSync } from '#areas/knowledge/sources/site-changed.ts';

/**
 * Content administration: SystemAdmin only, platform data (the route table's auth rule and scope). A
 * change of a site's published content queues the sync of the knowledge sources that read it.
 */
export const handler = apiHandler(
  contentAdminRoutes,
  {
    'content.sites.list': ({ query }) => listSites(query),
    'content.sites.get': ({ params }) => getSiteView(params.id),
    'content.sites.create': ({ principal, body }) => createSite(body, principal),
    'content.sites.update': ({ principal, params, body }) => updateSite(params.id, body, principal),
    'content.sites.delete': ({ principal, params }) => deleteSite(params.id, principal),
    'content.theme.get': ({ params }) => getTheme(params.siteId),
    'content.theme.put': ({ principal, params, body }) => putTheme(params.siteId, body, principal),
    'content.theme.preset': ({ principal, params, body }) => applyPreset(params.siteId, body.preset, principal),
    'content.pages.tree': ({ params }) => pageTree(params.siteId),
    'content.pages.validateSlug': ({ params, query }) => validateSlug(params.siteId, query),
    // One Query of the site's partition: an unknown site has no pages, so it is a 404 too.
    'content.pages.get': ({ params }) => getPage(params.siteId, params.id),
    'content.pages.create': ({ principal, params, body }) => createPage(params.siteId, body, principal),
    'content.pages.update': ({ principal, params, body }) => updatePage(params.siteId, params.id, body, principal),
    'content.pages.publish': ({ principal, params }) => togglePublish(params.siteId, params.id, principal),
    'content.pages.delete': ({ principal, params }) => deletePage(params.siteId, params.id, principal),
    'content.pages.translate': ({ principal, params, body }) =>
      translatePage(params.pageId, params.locale, body, principal),
    'content.pages.previewToken': ({ principal, params }) => previewToken(params.pageId, principal),
    'content.blog.create': ({ principal, params, body }) => createPost(params.siteId, body, principal),
    'content.blog.list': ({ params, query }) => listPosts(params.siteId, query),
    'content.blog.get': ({ params }) => postDetail(params.siteId, params.postId),
    'content.blog.update': ({ principal, params, body }) => updatePost(params.siteId, params.postId, body, principal),
    'content.blog.delete': ({ principal, params }) => deletePost(params.siteId, params.postId, principal),
    'content.blog.translate': ({ principal, params, body }) =>
      translatePost(params.postId, params.locale, body, principal),
    'content.forms.list': ({ params, query }) => listForms(params.siteId, query),
    'content.forms.get': ({ params }) => getForm(params.id),
    'content.forms.status': ({ principal, params, body }) => setFormStatus(params.id, body, principal),
    'content.media.upload': ({ principal, params, query, headers, rawBody, isBase64Encoded }) =>
      uploadDirect(params.siteId, query.folder, { headers, rawBody, isBase64Encoded }, principal),
    'content.media.presignUpload': ({ principal, params, body }) => presignUpload(params.siteId, body, principal),
    'content.media.complete': ({ principal, params }) => completeUpload(params.id, principal),
    'content.media.list': ({ params, query }) => listMedia(params.siteId, query),
    'content.media.delete': ({ principal, params }) => deleteMedia(params.id, principal),
    'content.media.presigned': ({ params, query }) => presignedGet(params.id, query.expiryMinutes),
    'content.navigation.get': ({ params }) => menus(params.siteId),
    'content.navigation.put': ({ principal, params, body }) =>
      putMenu(params.siteId, params.location, body.items, principal),
    'content.cache.invalidate': ({ principal, body }) => invalidateCache(body.siteId, principal),
  },
  { wiring: [on(SITE_CONTENT_CHANGED, queueSiteSync)] },
);
