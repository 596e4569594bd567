import { contentAdminRoutes } from '#shared/routes/content.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
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

/** Content administration: SystemAdmin only (the route table's auth rule), platform-wide. */
export const handler = apiHandler(contentAdminRoutes, {
  'content.sites.list': async ({ query }) => await listSites(query),
  'content.sites.get': async ({ params }) => await getSiteView(params.id),
  'content.sites.create': async ({ principal, body }) => await createSite(body, principal!),
  'content.sites.update': async ({ principal, params, body }) => await updateSite(params.id, body, principal!),
  'content.sites.delete': async ({ principal, params }) => {
    await deleteSite(params.id, principal!);
  },
  'content.theme.get': async ({ params }) => await getTheme(params.siteId),
  'content.theme.put': async ({ principal, params, body }) => await putTheme(params.siteId, body, principal!),
  'content.theme.preset': async ({ principal, params, body }) =>
    await applyPreset(params.siteId, body.preset, principal!),
  'content.pages.tree': async ({ params }) => await pageTree(params.siteId.toLowerCase()),
  'content.pages.validateSlug': async ({ params, query }) => await validateSlug(params.siteId, query),
  // One Query of the site's partition: an unknown site has no pages, so it is a 404 too.
  'content.pages.get': async ({ params }) => await getPage(params.siteId, params.id),
  'content.pages.create': async ({ principal, params, body }) => await createPage(params.siteId, body, principal!),
  'content.pages.update': async ({ principal, params, body }) =>
    await updatePage(params.siteId, params.id, body, principal!),
  'content.pages.publish': async ({ principal, params }) => await togglePublish(params.siteId, params.id, principal!),
  'content.pages.delete': async ({ principal, params }) => {
    await deletePage(params.siteId, params.id, principal!);
  },
  'content.pages.translate': async ({ principal, params, body }) =>
    await translatePage(params.pageId, params.locale, body, principal!),
  'content.pages.previewToken': async ({ principal, params }) => await previewToken(params.pageId, principal!),
  'content.blog.create': async ({ principal, params, body }) => await createPost(params.siteId, body, principal!),
  'content.blog.list': async ({ params, query }) => await listPosts(params.siteId, query),
  'content.blog.get': async ({ params }) => await postDetail(params.siteId, params.postId),
  'content.blog.update': async ({ principal, params, body }) =>
    await updatePost(params.siteId, params.postId, body, principal!),
  'content.blog.delete': async ({ principal, params }) => {
    await deletePost(params.siteId, params.postId, principal!);
  },
  'content.blog.translate': async ({ principal, params, body }) =>
    await translatePost(params.postId, params.locale, body, principal!),
  'content.forms.list': async ({ params, query }) => await listForms(params.siteId, query),
  'content.forms.get': async ({ params }) => await getForm(params.id),
  'content.forms.status': async ({ principal, params, body }) => await setFormStatus(params.id, body, principal!),
  'content.media.upload': async ({ principal, params, query, headers, rawBody, isBase64Encoded }) =>
    await uploadDirect(params.siteId, query.folder, { headers, rawBody, isBase64Encoded }, principal!),
  'content.media.presignUpload': async ({ principal, params, body }) =>
    await presignUpload(params.siteId, body, principal!),
  'content.media.complete': async ({ principal, params }) => await completeUpload(params.id, principal!),
  'content.media.list': async ({ params, query }) => await listMedia(params.siteId, query),
  'content.media.delete': async ({ principal, params }) => {
    await deleteMedia(params.id, principal!);
  },
  'content.media.presigned': async ({ params, query }) => await presignedGet(params.id, query.expiryMinutes),
  'content.navigation.get': async ({ params }) => await menus(params.siteId),
  'content.navigation.put': async ({ principal, params, body }) =>
    await putMenu(params.siteId, params.location, body.items, principal!),
  'content.cache.invalidate': async ({ principal, body }) => await invalidateCache(body.siteId, principal!),
});
