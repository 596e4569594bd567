import { created, noContent, ok } from '#shared/http/responses.ts';
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
  'content.sites.list': async ({ query }) => ok(await listSites(query)),
  'content.sites.get': async ({ params }) => ok(await getSiteView(params.id)),
  'content.sites.create': async ({ principal, body }) => created(await createSite(body, principal!)),
  'content.sites.update': async ({ principal, params, body }) => ok(await updateSite(params.id, body, principal!)),
  'content.sites.delete': async ({ principal, params }) => {
    await deleteSite(params.id, principal!);
    return noContent();
  },
  'content.theme.get': async ({ params }) => ok(await getTheme(params.siteId)),
  'content.theme.put': async ({ principal, params, body }) => ok(await putTheme(params.siteId, body, principal!)),
  'content.theme.preset': async ({ principal, params, body }) =>
    ok(await applyPreset(params.siteId, body.preset, principal!)),
  'content.pages.tree': async ({ params }) => ok(await pageTree(params.siteId.toLowerCase())),
  'content.pages.validateSlug': async ({ params, query }) => ok(await validateSlug(params.siteId, query)),
  // One Query of the site's partition: an unknown site has no pages, so it is a 404 too.
  'content.pages.get': async ({ params }) => ok(await getPage(params.siteId, params.id)),
  'content.pages.create': async ({ principal, params, body }) =>
    created(await createPage(params.siteId, body, principal!)),
  'content.pages.update': async ({ principal, params, body }) =>
    ok(await updatePage(params.siteId, params.id, body, principal!)),
  'content.pages.publish': async ({ principal, params }) =>
    ok(await togglePublish(params.siteId, params.id, principal!)),
  'content.pages.delete': async ({ principal, params }) => {
    await deletePage(params.siteId, params.id, principal!);
    return noContent();
  },
  'content.pages.translate': async ({ principal, params, body }) =>
    ok(await translatePage(params.pageId, params.locale, body, principal!)),
  'content.pages.previewToken': async ({ principal, params }) => created(await previewToken(params.pageId, principal!)),
  'content.blog.create': async ({ principal, params, body }) =>
    created(await createPost(params.siteId, body, principal!)),
  'content.blog.list': async ({ params, query }) => ok(await listPosts(params.siteId, query)),
  'content.blog.get': async ({ params }) => ok(await postDetail(params.siteId, params.postId)),
  'content.blog.update': async ({ principal, params, body }) =>
    ok(await updatePost(params.siteId, params.postId, body, principal!)),
  'content.blog.delete': async ({ principal, params }) => {
    await deletePost(params.siteId, params.postId, principal!);
    return noContent();
  },
  'content.blog.translate': async ({ principal, params, body }) =>
    ok(await translatePost(params.postId, params.locale, body, principal!)),
  'content.forms.list': async ({ params, query }) => ok(await listForms(params.siteId, query)),
  'content.forms.get': async ({ params }) => ok(await getForm(params.id)),
  'content.forms.status': async ({ principal, params, body }) => ok(await setFormStatus(params.id, body, principal!)),
  'content.media.upload': async ({ principal, params, query, headers, rawBody, isBase64Encoded }) =>
    created(await uploadDirect(params.siteId, query.folder, { headers, rawBody, isBase64Encoded }, principal!)),
  'content.media.presignUpload': async ({ principal, params, body }) =>
    created(await presignUpload(params.siteId, body, principal!)),
  'content.media.complete': async ({ principal, params }) => ok(await completeUpload(params.id, principal!)),
  'content.media.list': async ({ params, query }) => ok(await listMedia(params.siteId, query)),
  'content.media.delete': async ({ principal, params }) => {
    await deleteMedia(params.id, principal!);
    return noContent();
  },
  'content.media.presigned': async ({ params, query }) => ok(await presignedGet(params.id, query.expiryMinutes)),
  'content.navigation.get': async ({ params }) => ok(await menus(params.siteId)),
  'content.navigation.put': async ({ principal, params, body }) =>
    ok(await putMenu(params.siteId, params.location, body.items, principal!)),
  'content.cache.invalidate': async ({ principal, body }) => ok(await invalidateCache(body.siteId, principal!)),
});
