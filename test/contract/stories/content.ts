import { expect } from 'vitest';
import { adminWithTenant, ok, type Story } from '../story.ts';

/** A site with a translated page and post, read back through the public routes, and a form submission. */
export const story: Story = async (ctx) => {
  const { client, tag } = ctx;
  const { admin, tenant } = await adminWithTenant(ctx, 'cms');
  const domain = `cms-${tag}.example.com`.toLowerCase();
  const site = ok(
    'site',
    await admin.POST('/api/content/admin/sites', {
      body: {
        tenantId: tenant.id,
        domain,
        isMaster: true,
        defaultLocale: 'en',
        themeConfig: '{"primaryColor":"#123456"}',
        metadata: {},
        isActive: true,
      },
    }),
  ).result;
  const siteId = site.id;
  const page = ok(
    'page',
    await admin.POST('/api/content/admin/sites/{siteId}/pages', {
      params: { path: { siteId } },
      body: { slug: 'home', pageType: 1, sortOrder: 0, isPublished: true, settings: '{}' },
    }),
  ).result;
  const translated = ok(
    'translation',
    await admin.PUT('/api/content/admin/pages/{pageId}/translations/{locale}', {
      params: { path: { pageId: page.id, locale: 'en' } },
      body: {
        title: 'Home',
        contentBlocks: JSON.stringify([{ type: 'rich-text', html: '<p>Hi<script>x()</script></p>' }]),
      },
    }),
  ).result;
  expect(JSON.parse(translated.translations[0]!.contentBlocks)).toEqual([{ type: 'rich-text', html: '<p>Hi</p>' }]);
  const post = ok(
    'post',
    await admin.POST('/api/content/admin/sites/{siteId}/blog', {
      params: { path: { siteId } },
      body: { slug: 'hello', authorName: 'Ann', category: 'news', tags: ['intro'], isPublished: true },
    }),
  ).result;
  const postTranslated = ok(
    'post translation',
    await admin.PUT('/api/content/admin/blog/{postId}/translations/{locale}', {
      params: { path: { postId: post.id, locale: 'en' } },
      body: { title: 'Hello', bodyHtml: '<p>Hi</p>' },
    }),
  ).result;
  expect(postTranslated.locales).toEqual(['en']);

  const resolved = ok(
    'resolve',
    await client.GET('/api/content/sites/resolve', { params: { query: { domain } } }),
  ).result;
  expect(resolved.id).toBe(siteId);
  const shown = ok(
    'public page',
    await client.GET('/api/content/sites/{siteId}/pages/{slug}', {
      params: { path: { siteId, slug: 'home' }, query: { locale: 'de' } },
    }),
  ).result;
  expect(shown).toMatchObject({ title: 'Home', locale: 'en' });
  const posts = ok(
    'public blog',
    await client.GET('/api/content/sites/{siteId}/blog', { params: { path: { siteId }, query: { tag: 'intro' } } }),
  ).result;
  expect(posts.items.map((p) => p.title)).toEqual(['Hello']);
  ok(
    'form',
    await client.POST('/api/content/sites/{siteId}/forms/submit', {
      params: { path: { siteId } },
      body: { formType: 'contact', fields: { name: 'Ann' } },
    }),
  );
  const forms = ok(
    'forms',
    await admin.GET('/api/content/admin/sites/{siteId}/forms', { params: { path: { siteId } } }),
  ).result;
  expect(forms.totalCount).toBe(1);
};
