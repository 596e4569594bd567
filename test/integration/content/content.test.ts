import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startS3, type RunningS3 } from '#local/s3.ts';
import { listMedia } from '#areas/content/admin/media.ts';
import { siteContent } from '#areas/content/records.ts';
import { keys } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { s3 } from '#shared/platform/s3.ts';
import { inOneRateWindow, twoTenants } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tempDir } from '#test/support/temp-dir.ts';
import { nextIp } from '#test/support/fuzz/world.ts';

const A = '/api/content/admin';
const P = '/api/content/sites';
let ctx: Awaited<ReturnType<typeof twoTenants>>;
let running: RunningS3;
const as = (token?: string) => ({
  get: (path: string, headers?: Record<string, string>) => invoke('GET', `${A}${path}`, { token, headers }),
  post: (path: string, body?: unknown) => invoke('POST', `${A}${path}`, { token, body }),
  put: (path: string, body?: unknown) => invoke('PUT', `${A}${path}`, { token, body }),
  patch: (path: string, body?: unknown) => invoke('PATCH', `${A}${path}`, { token, body }),
  del: (path: string) => invoke('DELETE', `${A}${path}`, { token }),
});
let admin: ReturnType<typeof as>;
const pub = (path: string, headers?: Record<string, string>) => invoke('GET', `${P}${path}`, { headers, ip: nextIp() });
const tag = () => crypto.randomUUID().slice(0, 8);

beforeAll(async () => {
  running = await startS3(tempDir('content-s3-'));
  s3.install(undefined);
  ctx = await twoTenants();
  admin = as(ctx.admin);
});
afterAll(async () => {
  s3.install(undefined);
  await running?.stop();
});

const siteBody = (over: Record<string, unknown> = {}) => ({
  tenantId: ctx.tenantA,
  domain: `site-${tag()}.example.com`,
  isMaster: false,
  defaultLocale: 'en',
  themeConfig: {},
  metadata: {},
  isActive: true,
  ...over,
});
const newSite = async (over: Record<string, unknown> = {}) => {
  const res = await admin.post('/sites', siteBody(over));
  expect(res).toAnswer(201);
  return res.json.result as { id: string; domain: string };
};
const pageBody = (over: Record<string, unknown> = {}) => ({
  slug: `p-${tag()}`,
  pageType: 0,
  sortOrder: 0,
  isPublished: true,
  settings: '{}',
  ...over,
});
const newPage = async (siteId: string, over: Record<string, unknown> = {}) => {
  const res = await admin.post(`/sites/${siteId}/pages`, pageBody(over));
  expect(res).toAnswer(201);
  return res.json.result as { id: string; slug: string };
};
const translation = (title: string) => ({ title, contentBlocks: JSON.stringify([{ type: 'text', text: title }]) });

describe('sites', () => {
  it('keeps domains unique and lowercase, one master per tenant, and stores JSON strings as objects', async () => {
    const site = await newSite({ themeConfig: '{"primaryColor":"#123456"}', metadata: '{"title":"Home"}' });
    const got = await admin.get(`/sites/${site.id}`);
    expect(got.json.result).toMatchObject({
      themeConfig: { primaryColor: '#123456' },
      metadata: { title: 'Home' },
      tenantId: ctx.tenantA,
    });
    expect(await admin.post('/sites', siteBody({ domain: site.domain }))).toAnswer(409);
    expect(await admin.post('/sites', siteBody({ domain: 'Upper.Example.com' }))).toAnswer(400);
    expect(await admin.post('/sites', siteBody({ themeConfig: '{not json' }))).toAnswer(400);
    expect(await admin.post('/sites', siteBody({ metadata: '[1,2]' }))).toAnswer(400);
    expect(await admin.post('/sites', siteBody({ defaultLocale: 'english-please' }))).toAnswer(400);
    expect(await admin.post('/sites', siteBody({ tenantId: crypto.randomUUID() }))).toAnswer(400);

    const master = await newSite({ tenantId: ctx.tenantB, isMaster: true });
    expect(await admin.post('/sites', siteBody({ tenantId: ctx.tenantB, isMaster: true }))).toAnswer(409);
    const moved = await admin.put(
      `/sites/${site.id}`,
      siteBody({ domain: `moved-${tag()}.example.com`, themeConfig: {}, metadata: {} }),
    );
    expect(moved).toAnswer(200);
    expect(await admin.post('/sites', siteBody({ domain: site.domain }))).toAnswer(201);
    expect(await admin.put(`/sites/${site.id}`, siteBody({ tenantId: ctx.tenantB }))).toAnswer(400);
    expect(
      await admin.put(
        `/sites/${master.id}`,
        siteBody({ tenantId: ctx.tenantB, isMaster: false, domain: master.domain }),
      ),
    ).toAnswer(200);
    expect(await admin.post('/sites', siteBody({ tenantId: ctx.tenantB, isMaster: true }))).toAnswer(201);

    const list = await admin.get('/sites?pageSize=100');
    expect(list.json.result.items.map((s: { id: string }) => s.id)).toContain(site.id);
  });

  it('are for SystemAdmin only', async () => {
    const site = await newSite();
    for (const token of [ctx.ownerA, ctx.memberA]) {
      expect(await as(token).get(`/sites/${site.id}`)).toAnswer(403);
      expect(await as(token).post('/sites', siteBody())).toAnswer(403);
    }
    expect(await as().get('/sites')).toAnswer(401);
    expect(await admin.get(`/sites/${crypto.randomUUID()}`)).toAnswer(404);
  });
});

describe('theme', () => {
  it('validates colors and fonts, applies presets, and renders theme.css with cache headers', async () => {
    const site = await newSite();
    expect(await admin.put(`/sites/${site.id}/theme`, { primaryColor: 'red' })).toAnswer(400);
    expect(await admin.put(`/sites/${site.id}/theme`, { fontFamily: 'x;} body{display:none' })).toAnswer(400);
    const set = await admin.put(`/sites/${site.id}/theme`, {
      primaryColor: '#abc',
      fontFamily: 'Open Sans, sans-serif',
    });
    expect(set.json.result).toMatchObject({ primaryColor: '#abc', fontFamily: 'Open Sans, sans-serif', preset: null });
    const css = await pub(`/${site.id}/theme.css`);
    expect(css).toAnswer(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.headers['cache-control']).toBe('public, max-age=300');
    expect(css.text).toContain('--color-primary: #abc;');
    expect(css.text).toContain('--font-family: Open Sans, sans-serif;');
    expect(await pub(`/${site.id}/theme.css`, { 'if-none-match': css.headers.etag! })).toAnswer(304);

    expect(await admin.post(`/sites/${site.id}/theme/preset`, { preset: 'nope' })).toAnswer(400);
    const preset = await admin.post(`/sites/${site.id}/theme/preset`, { preset: 'ocean' });
    expect(preset.json.result).toEqual({
      primaryColor: '#0e7490',
      secondaryColor: '#e0f2fe',
      fontFamily: 'Open Sans, Arial, sans-serif',
      preset: 'ocean',
    });
    expect((await admin.get(`/sites/${site.id}/theme`)).json.result.preset).toBe('ocean');
    // A themeConfig written through the site with an unsafe value never reaches the CSS.
    await admin.put(
      `/sites/${site.id}`,
      siteBody({ domain: site.domain, themeConfig: { primaryColor: 'red;}*{x:y' } }),
    );
    expect((await pub(`/${site.id}/theme.css`)).text).not.toContain('red;');
  });
});

describe('pages', () => {
  it('form a tree with sibling-unique slugs and no cycles', async () => {
    const site = await newSite();
    const about = await newPage(site.id, { slug: 'about', sortOrder: 2 });
    const home = await newPage(site.id, { slug: 'home', sortOrder: 1, pageType: 1 });
    const team = await newPage(site.id, { slug: 'team', parentId: about.id });
    expect(await admin.post(`/sites/${site.id}/pages`, pageBody({ slug: 'about' }))).toAnswer(409);
    expect(await admin.post(`/sites/${site.id}/pages`, pageBody({ slug: 'about', parentId: about.id }))).toAnswer(201);
    expect(await admin.post(`/sites/${site.id}/pages`, pageBody({ slug: 'Bad_Slug' }))).toAnswer(400);
    expect(await admin.post(`/sites/${site.id}/pages`, pageBody({ settings: '{oops' }))).toAnswer(400);
    expect(await admin.post(`/sites/${site.id}/pages`, pageBody({ pageType: 99 }))).toAnswer(400);

    const other = await newSite();
    const foreign = await newPage(other.id);
    expect(await admin.post(`/sites/${site.id}/pages`, pageBody({ parentId: foreign.id }))).toAnswer(400);
    expect(await admin.get(`/sites/${site.id}/pages/${foreign.id}`)).toAnswer(404);
    expect(
      await admin.put(`/sites/${site.id}/pages/${about.id}`, pageBody({ slug: 'about', parentId: team.id })),
    ).toAnswer(400);
    expect(
      await admin.put(`/sites/${site.id}/pages/${about.id}`, pageBody({ slug: 'about', parentId: about.id })),
    ).toAnswer(400);

    const tree = (await admin.get(`/sites/${site.id}/pages`)).json.result as {
      id: string;
      slug: string;
      children: { slug: string }[];
    }[];
    expect(tree.map((p) => p.slug)).toEqual(['home', 'about']);
    expect(tree[1]!.children.map((c) => c.slug).sort()).toEqual(['about', 'team']);
    expect(tree[0]!.id).toBe(home.id);

    const check = (q: string) => admin.get(`/sites/${site.id}/pages/validate-slug?${q}`);
    expect((await check('slug=about')).json.result).toMatchObject({ isValid: true, isAvailable: false });
    expect((await check(`slug=about&excludePageId=${about.id}`)).json.result).toMatchObject({
      isValid: true,
      isAvailable: true,
    });
    expect((await check('slug=fresh')).json.result).toMatchObject({ isValid: true, isAvailable: true });
    expect((await check('slug=NOPE!')).json.result).toMatchObject({ isValid: false, isAvailable: false });

    expect(await admin.del(`/sites/${site.id}/pages/${about.id}`)).toAnswer(409);
    expect(await admin.del(`/sites/${site.id}/pages/${team.id}`)).toAnswer(204);
    expect(await admin.get(`/sites/${site.id}/pages/${team.id}`)).toAnswer(404);
    expect((await check(`slug=team&parentId=${about.id}`)).json.result.isAvailable).toBe(true);
  });

  it('serve translations in two locales with fallback, publish toggles and previews', async () => {
    const site = await newSite({ defaultLocale: 'en' });
    const page = await newPage(site.id, { slug: 'welcome', isPublished: false });
    expect(await admin.put(`/pages/${page.id}/translations/en`, translation('Welcome'))).toAnswer(200);
    const de = await admin.put(`/pages/${page.id}/translations/de-de`, translation('Willkommen'));
    expect(de).toAnswer(200);
    expect(de.json.result.translations.map((t: { locale: string }) => t.locale)).toEqual(['de-DE', 'en']);
    expect(await admin.put(`/pages/${page.id}/translations/not_a_locale`, translation('x'))).toAnswer(400);
    expect(await admin.put(`/pages/${page.id}/translations/fr`, { title: 'x', contentBlocks: '[unclosed' })).toAnswer(
      400,
    );
    expect(await admin.put(`/pages/${crypto.randomUUID()}/translations/fr`, translation('x'))).toAnswer(404);

    expect(await pub(`/${site.id}/pages/welcome`)).toAnswer(404);
    const token = await admin.post(`/pages/${page.id}/preview-token`);
    expect(token).toAnswer(201);
    const preview = await pub(`/${site.id}/pages/welcome?locale=de-DE&preview_token=${token.json.result.token}`);
    expect(preview).toAnswer(200);
    expect(preview.json.result.title).toBe('Willkommen');
    expect(preview.headers['cache-control']).toBe('private, no-store');
    expect(await pub(`/${site.id}/pages/welcome?preview_token=forged`)).toAnswer(404);

    const toggled = await admin.patch(`/sites/${site.id}/pages/${page.id}/publish`);
    expect(toggled.json.result.isPublished).toBe(true);
    const fr = await pub(`/${site.id}/pages/welcome?locale=fr`);
    expect(fr.json.result).toMatchObject({ title: 'Welcome', locale: 'en' });
    expect(fr.headers['cache-control']).toBe('public, max-age=120');
    const list = await pub(`/${site.id}/pages?locale=de-DE`);
    expect(list.json.result.map((p: { title: string }) => p.title)).toEqual(['Willkommen']);
    expect((await admin.patch(`/sites/${site.id}/pages/${page.id}/publish`)).json.result.isPublished).toBe(false);
    expect((await pub(`/${site.id}/pages?locale=de-DE`)).json.result).toEqual([]);
  });
});

describe('public reads', () => {
  it('resolve active sites only, answer 304 on a matching ETag, and change the ETag on invalidation', async () => {
    const site = await newSite();
    const inactive = await newSite({ isActive: false });
    expect(await pub(`/resolve?domain=${inactive.domain}`)).toAnswer(404);
    expect(await pub(`/resolve?domain=unknown-${tag()}.example.com`)).toAnswer(404);
    const resolved = await pub(`/resolve?domain=${site.domain}`);
    expect(resolved).toAnswer(200);
    expect(resolved.json.result.id).toBe(site.id);
    expect(resolved.headers['cache-control']).toBe('public, max-age=300');
    const etag = resolved.headers.etag!;
    expect(etag).toMatch(/^".+"$/);
    const again = await pub(`/resolve?domain=${site.domain}`, { 'if-none-match': etag });
    expect(again).toAnswer(304);
    expect(again.text).toBe('');
    expect((await admin.post('/cache/invalidate', { siteId: site.id })).json.result.cacheVersion).toBe(1);
    const fresh = await pub(`/resolve?domain=${site.domain}`, { 'if-none-match': etag });
    expect(fresh).toAnswer(200);
    expect(fresh.headers.etag).not.toBe(etag);
    expect(await admin.post('/cache/invalidate', { siteId: crypto.randomUUID() })).toAnswer(404);
    expect(await pub(`/${inactive.id}/pages`)).toAnswer(404);
  });
});

describe('blog', () => {
  it('filters admin lists and shows only published, past posts publicly, newest first, sanitized', async () => {
    const site = await newSite();
    const post = (over: Record<string, unknown>) =>
      admin.post(`/sites/${site.id}/blog`, {
        slug: `b-${tag()}`,
        authorName: 'Ann',
        category: 'news',
        tags: ['a'],
        isPublished: true,
        ...over,
      });
    const older = (await post({ slug: 'older', publishedAt: '2024-01-01T10:00:00+02:00' })).json.result;
    const newer = (
      await post({ slug: 'newer', publishedAt: '2025-01-01T00:00:00Z', category: 'tech', tags: ['a', 'b'] })
    ).json.result;
    const draft = (await post({ slug: 'draft', isPublished: false })).json.result;
    const future = (await post({ slug: 'future', publishedAt: '2999-01-01T00:00:00Z' })).json.result;
    expect(older.publishedAt).toBe('2024-01-01T08:00:00.000Z');
    expect(await post({ slug: 'older' })).toAnswer(409);

    const titles = async (q: string) =>
      ((await admin.get(`/sites/${site.id}/blog?${q}`)).json.result.items as { slug: string }[]).map((p) => p.slug);
    expect(await titles('')).toEqual(['future', 'draft', 'newer', 'older']);
    expect(await titles('category=tech')).toEqual(['newer']);
    expect(await titles('tag=b')).toEqual(['newer']);
    expect(await titles('isPublished=false')).toEqual(['draft']);
    expect(await admin.get(`/sites/${site.id}/blog?isPublished=maybe`)).toAnswer(400);

    const html =
      '<p onclick="x()">Hi <a href="javascript:alert(1)">x</a><script>alert(1)</script>' +
      '<img src="https://a.example/i.png" onerror="y()"></p>';
    const tr = await admin.put(`/blog/${newer.id}/translations/en`, { title: 'Newer', bodyHtml: html });
    expect(tr).toAnswer(200);
    const body = tr.json.result.translations[0].bodyHtml as string;
    expect(body).not.toMatch(/script|onclick|onerror|javascript:/);
    expect(body).toContain('<img src="https://a.example/i.png" />');
    await admin.put(`/blog/${older.id}/translations/de`, { title: 'Älter', bodyHtml: '<p>x</p>' });

    const list = await pub(`/${site.id}/blog?locale=en`);
    expect(list).toAnswer(200);
    expect(list.json.result.items.map((p: { slug: string }) => p.slug)).toEqual(['newer', 'older']);
    expect(list.json.result.items[0].title).toBe('Newer');
    expect(list.json.result.items[1].title).toBe(null);
    expect((await pub(`/${site.id}/blog?tag=b`)).json.result.totalCount).toBe(1);
    expect((await pub(`/${site.id}/blog/newer`)).json.result.title).toBe('Newer');
    expect(await pub(`/${site.id}/blog/draft`)).toAnswer(404);
    expect(await pub(`/${site.id}/blog/future`)).toAnswer(404);

    expect(
      (
        await admin.put(`/sites/${site.id}/blog/${draft.id}`, {
          slug: 'draft',
          authorName: 'Ann',
          category: 'news',
          tags: [],
          isPublished: true,
        })
      ).json.result.publishedAt,
    ).toMatch(/^\d{4}-/);
    expect(await pub(`/${site.id}/blog/draft`)).toAnswer(200);
    expect(await admin.del(`/sites/${site.id}/blog/${future.id}`)).toAnswer(204);
    expect(await admin.get(`/sites/${site.id}/blog/${future.id}`)).toAnswer(404);
    expect((await admin.get(`/sites/${site.id}/blog`)).json.result.totalCount).toBe(3);
  });
});

describe('forms', () => {
  it('take public submissions with a honeypot and a per-IP limit; admins filter and set status', async () => {
    const site = await newSite();
    const submit = (body: unknown, ip = nextIp()) => invoke('POST', `${P}/${site.id}/forms/submit`, { body, ip });
    const sent = await submit({ formType: 'contact', fields: { name: 'Ann', message: 'Hello' } });
    expect(sent).toAnswer(201);
    const bot = await submit({ formType: 'contact', fields: { name: 'Bot', _honeypot: 'http://spam' } });
    expect(bot).toAnswer(201);
    expect(await submit({ formType: 'contact', fields: { nested: { a: 1 } } })).toAnswer(400);
    expect(
      await submit({
        formType: 'contact',
        fields: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, 'x'])),
      }),
    ).toAnswer(400);
    expect(await submit({ formType: 'contact', fields: { big: 'x'.repeat(70_000) } })).toAnswer(413);
    expect(
      await invoke('POST', `${P}/${crypto.randomUUID()}/forms/submit`, {
        body: { formType: 'contact', fields: {} },
        ip: nextIp(),
      }),
    ).toAnswer(404);

    const ip = nextIp();
    const burst = await inOneRateWindow(async () => {
      const statuses = [];
      for (let i = 0; i < 61; i++)
        statuses.push((await submit({ formType: 'flood', fields: { i: String(i) } }, ip)).status);
      return statuses;
    });
    expect(burst.filter((s) => s === 201)).toHaveLength(60);
    expect(burst.at(-1)).toBe(429);

    const list = await admin.get(`/sites/${site.id}/forms?formType=contact`);
    expect(list.json.result.totalCount).toBe(2);
    const spam = await admin.get(`/sites/${site.id}/forms?status=5`);
    expect(spam.json.result.items).toHaveLength(1);
    expect(spam.json.result.items[0].fields).toEqual({ name: 'Bot' });
    const id = sent.json.result.id;
    const detail = await admin.get(`/forms/${id}`);
    expect(detail.json.result).toMatchObject({ status: 0, fields: { name: 'Ann', message: 'Hello' }, isSpam: false });
    const moved = await admin.patch(`/forms/${id}/status`, { status: 3, internalNotes: 'Called back' });
    expect(moved.json.result).toMatchObject({ status: 3, internalNotes: 'Called back' });
    expect(await admin.patch(`/forms/${id}/status`, { status: 9 })).toAnswer(400);
    expect((await admin.get(`/sites/${site.id}/forms?status=3`)).json.result.items[0].id).toBe(id);
    expect(await admin.get(`/sites/${site.id}/forms?status=x`)).toAnswer(400);
    expect(await admin.get(`/forms/${crypto.randomUUID()}`)).toAnswer(404);
  });
});

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154' +
    '789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);
function multipart(name: string, fileName: string, type: string, data: Buffer) {
  const boundary = `----b${tag()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${fileName}"\r\nContent-Type: ` +
      `${type}\r\n\r\n`,
  );
  return {
    body: Buffer.concat([head, data, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
const upload = (siteId: string, part: ReturnType<typeof multipart>, folder = 'images') =>
  invoke('POST', `${A}/sites/${siteId}/media/upload?folder=${folder}`, {
    token: ctx.admin,
    rawBody: part.body,
    contentType: part.contentType,
  });

describe('media', () => {
  it('uploads directly, checks content by its bytes, lists by folder, presigns and deletes the object', async () => {
    const site = await newSite();
    const res = await upload(site.id, multipart('file', 'logo.png', 'image/png', PNG));
    expect(res).toAnswer(201);
    const { id, url } = res.json.result;
    const fetched = await fetch(url);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(PNG)).toBe(true);

    expect(
      await upload(site.id, multipart('file', 'evil.png', 'image/png', Buffer.from('<script>alert(1)</script>\x00'))),
    ).toAnswer(415);
    expect(
      await upload(
        site.id,
        multipart('file', 'x.exe', 'application/x-msdownload', Buffer.from('MZ\x90\x00\x03', 'latin1')),
      ),
    ).toAnswer(415);
    expect(await upload(site.id, multipart('other', 'logo.png', 'image/png', PNG))).toAnswer(400);
    expect(
      await invoke('POST', `${A}/sites/${site.id}/media/upload`, { token: ctx.admin, body: { file: 'x' } }),
    ).toAnswer(415);
    expect(await upload(site.id, multipart('file', 'notes.txt', 'text/plain', Buffer.from('hello')), 'docs')).toAnswer(
      201,
    );
    for (const size of [4_500_000, 4_420_000]) {
      const big = await upload(
        site.id,
        multipart('file', 'big.png', 'image/png', Buffer.concat([PNG, Buffer.alloc(size)])),
      );
      expect(big, String(size)).toAnswer(413);
      expect(big.json.error).toEqual({
        code: 'PAYLOAD_TOO_LARGE',
        message: expect.stringMatching(
          /at most 4,400,000 bytes .*Files up to 10 MB go through POST \/api\/content\/admin\/sites\/\{siteId\}\/media\/presigned-upload/,
        ),
      });
    }

    const images = await admin.get(`/sites/${site.id}/media?folder=images`);
    expect(images.json.result.items.map((m: { id: string }) => m.id)).toEqual([id]);
    expect(images.json.result.items[0]).toMatchObject({
      contentType: 'image/png',
      size: PNG.length,
      status: 'ready',
      key: expect.stringMatching(new RegExp(`^sites/${site.id}/images/`)),
    });
    expect((await admin.get(`/sites/${site.id}/media`)).json.result.totalCount).toBe(2);

    expect(await admin.get(`/media/${id}/presigned?expiryMinutes=0`)).toAnswer(400);
    expect(await admin.get(`/media/${id}/presigned?expiryMinutes=1441`)).toAnswer(400);
    const signed = await admin.get(`/media/${id}/presigned?expiryMinutes=5`);
    expect(signed).toAnswer(200);
    expect((await fetch(signed.json.result.url)).status).toBe(200);

    const key = images.json.result.items[0].key;
    expect(await admin.del(`/media/${id}`)).toAnswer(204);
    await expect(s3().send(new HeadObjectCommand({ Bucket: config.mediaBucket, Key: key }))).rejects.toThrow();
    expect(await admin.del(`/media/${id}`)).toAnswer(404);
  });

  it('takes larger files through a presigned upload checked on completion', async () => {
    const site = await newSite();
    expect(
      await admin.post(`/sites/${site.id}/media/presigned-upload`, {
        fileName: 'a.png',
        contentType: 'image/png',
        size: 10 * 1024 * 1024 + 1,
      }),
    ).toAnswer(413);
    expect(
      await admin.post(`/sites/${site.id}/media/presigned-upload`, {
        fileName: 'a.svg',
        contentType: 'image/svg+xml',
        size: 100,
      }),
    ).toAnswer(415);
    const big = Buffer.concat([PNG, Buffer.alloc(5_000_000)]);
    const start = await admin.post(`/sites/${site.id}/media/presigned-upload`, {
      fileName: 'big.png',
      contentType: 'image/png',
      size: big.length,
      folder: 'large',
    });
    expect(start).toAnswer(201);
    const { id, uploadUrl, headers } = start.json.result;
    expect(await admin.post(`/media/${id}/complete`)).toAnswer(400);
    const put = await fetch(uploadUrl, { method: 'PUT', headers, body: big });
    expect(put.status).toBe(200);
    const done = await admin.post(`/media/${id}/complete`);
    expect(done).toAnswer(200);
    expect(done.json.result).toMatchObject({ status: 'ready', size: big.length, contentType: 'image/png' });
    const object = await s3().send(new GetObjectCommand({ Bucket: config.mediaBucket, Key: done.json.result.key }));
    expect(Number(object.ContentLength)).toBe(big.length);

    const fake = await admin.post(`/sites/${site.id}/media/presigned-upload`, {
      fileName: 'fake.pdf',
      contentType: 'application/pdf',
      size: 11,
    });
    await fetch(fake.json.result.uploadUrl, {
      method: 'PUT',
      headers: fake.json.result.headers,
      body: Buffer.from('hello world'),
    });
    expect(await admin.post(`/media/${fake.json.result.id}/complete`)).toAnswer(415);
    expect(await admin.get(`/media/${fake.json.result.id}/presigned`)).toAnswer(404);
  });
});

describe('navigation', () => {
  it('keeps header, footer and sidebar menus of pages of the same site, at most three levels', async () => {
    const site = await newSite();
    const page = await newPage(site.id);
    const foreign = await newPage((await newSite()).id);
    expect(await admin.put(`/sites/${site.id}/navigation/topbar`, { items: [] })).toAnswer(400);
    expect(
      await admin.put(`/sites/${site.id}/navigation/header`, { items: [{ label: 'X', pageId: foreign.id }] }),
    ).toAnswer(400);
    expect(await admin.put(`/sites/${site.id}/navigation/header`, { items: [{ label: 'X' }] })).toAnswer(400);
    const deep = {
      label: '1',
      url: '/a',
      children: [
        { label: '2', url: '/b', children: [{ label: '3', url: '/c', children: [{ label: '4', url: '/d' }] }] },
      ],
    };
    expect(await admin.put(`/sites/${site.id}/navigation/header`, { items: [deep] })).toAnswer(400);
    expect(
      await admin.put(`/sites/${site.id}/navigation/header`, { items: [{ label: 'X', url: 'javascript:alert(1)' }] }),
    ).toAnswer(400);
    const ok = await admin.put(`/sites/${site.id}/navigation/header`, {
      items: [{ label: 'Home', pageId: page.id, children: [{ label: 'Docs', url: 'https://docs.example.com' }] }],
    });
    expect(ok).toAnswer(200);
    const menus = (await admin.get(`/sites/${site.id}/navigation`)).json.result;
    expect(menus.map((m: { location: string }) => m.location)).toEqual(['header', 'footer', 'sidebar']);
    expect(menus[0].items[0]).toEqual({
      label: 'Home',
      pageId: page.id,
      url: null,
      children: [{ label: 'Docs', pageId: null, url: 'https://docs.example.com', children: [] }],
    });
    expect(menus[1].items).toEqual([]);
  });
});

describe('a site built from scratch and deleted', () => {
  it('deletes pages, translations, posts, forms, navigation and media (S3 included)', async () => {
    const site = await newSite();
    const page = await newPage(site.id, { slug: 'home' });
    await admin.put(`/pages/${page.id}/translations/en`, translation('Home'));
    const post = (
      await admin.post(`/sites/${site.id}/blog`, {
        slug: 'hello',
        authorName: 'A',
        category: 'c',
        tags: [],
        isPublished: true,
      })
    ).json.result;
    await admin.put(`/blog/${post.id}/translations/en`, { title: 'Hello', bodyHtml: '<p>hi</p>' });
    await admin.put(`/sites/${site.id}/navigation/footer`, { items: [{ label: 'Home', pageId: page.id }] });
    await invoke('POST', `${P}/${site.id}/forms/submit`, {
      body: { formType: 'contact', fields: { a: 'b' } },
      ip: nextIp(),
    });
    const media = await upload(site.id, multipart('file', 'logo.png', 'image/png', PNG));
    expect(media).toAnswer(201);

    const gone = await admin.del(`/sites/${site.id}`);
    expect(gone).toAnswer(204);
    expect(await admin.get(`/sites/${site.id}`)).toAnswer(404);
    expect(await pub(`/resolve?domain=${site.domain}`)).toAnswer(404);
    const left = await ddb().send(
      new QueryCommand({
        TableName: config.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': siteContent(site.id) },
      }),
    );
    expect(left.Count).toBe(0);
    const objects = await fetch(media.json.result.url);
    expect(objects.status).toBe(404);
    expect(await admin.get(`/media/${media.json.result.id}/presigned`)).toAnswer(404);
    // The domain and slugs are free again.
    expect(await admin.post('/sites', siteBody({ domain: site.domain }))).toAnswer(201);
  });

  it("lists a site's posts, forms and media in two requests, and 404s for an unknown or deleted site", async () => {
    const site = await newSite();
    const lists = ['blog', 'forms', 'media'].map((l) => `/sites/${site.id}/${l}`);
    for (const path of lists) expect((await admin.get(path)).json.result).toMatchObject({ items: [], totalCount: 0 });
    await admin.post(`/sites/${site.id}/blog`, {
      slug: 'hello',
      authorName: 'A',
      category: 'c',
      tags: [],
      isPublished: true,
    });
    await invoke('POST', `${P}/${site.id}/forms/submit`, {
      body: { formType: 'contact', fields: { a: 'b' } },
      ip: nextIp(),
    });
    expect(await upload(site.id, multipart('file', 'logo.png', 'image/png', PNG))).toAnswer(201);
    for (const path of lists) {
      const spy = vi.spyOn(ddb(), 'send');
      const res = await admin.get(path);
      const reads = spy.mock.calls.map(([command]) => command.constructor.name).filter((c) => !/Update|Put/.test(c));
      spy.mockRestore();
      expect(res.json.result.totalCount, path).toBe(1);
      expect(reads, path).toHaveLength(2);
    }
    for (const path of lists)
      expect((await admin.get(path.replace(site.id, crypto.randomUUID()))).status, path).toBe(404);
    expect(await admin.del(`/sites/${site.id}`)).toAnswer(204);
    for (const path of lists) expect((await admin.get(path)).status, path).toBe(404);
  });
});

describe('audit', () => {
  it('records every create, update, state change and delete with the site tenant', async () => {
    const site = await newSite();
    const page = await newPage(site.id);
    await admin.patch(`/sites/${site.id}/pages/${page.id}/publish`);
    await admin.put(`/sites/${site.id}/theme`, { primaryColor: '#fff' });
    await admin.del(`/sites/${site.id}`);
    const entries = await ddb().send(
      new QueryCommand({
        TableName: config.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        FilterExpression: 'entityId IN (:site, :page)',
        ExpressionAttributeValues: { ':pk': keys.platformCollection('AUDIT'), ':site': site.id, ':page': page.id },
      }),
    );
    const seen = (entries.Items ?? []).map((e) => `${e.entityType}:${e.action}:${e.tenantId}`).sort();
    expect(seen).toEqual([
      `Page:create:${ctx.tenantA}`,
      `Page:unpublish:${ctx.tenantA}`,
      `Site:create:${ctx.tenantA}`,
      `Site:delete:${ctx.tenantA}`,
      `SiteTheme:update:${ctx.tenantA}`,
    ]);
  });
});

describe('security and robustness', () => {
  const STORAGE = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'tenantId', 'uploadKey'];
  const MEDIA_FIELDS = [
    'id',
    'siteId',
    'folder',
    'fileName',
    'contentType',
    'size',
    'status',
    'key',
    'url',
    'createdAt',
  ];

  it('6: media answers (complete, list) carry exactly their documented fields, no storage attribute', async () => {
    const site = await newSite();
    expect(await upload(site.id, multipart('file', 'logo.png', 'image/png', PNG))).toAnswer(201);
    const start = await admin.post(`/sites/${site.id}/media/presigned-upload`, {
      fileName: 'logo.png',
      contentType: 'image/png',
      size: PNG.length,
    });
    await fetch(start.json.result.uploadUrl, { method: 'PUT', headers: start.json.result.headers, body: PNG });
    const done = await admin.post(`/media/${start.json.result.id}/complete`);
    expect(done).toAnswer(200);
    const listed = (await admin.get(`/sites/${site.id}/media`)).json.result.items as Record<string, unknown>[];
    expect(listed).toHaveLength(2);
    // The area maps explicitly: its own answer, before the runtime shapes it, has no storage attribute either.
    const own = await listMedia(site.id, { page: 1, pageSize: 20 });
    for (const answer of [done.json.result, ...listed, ...own.items]) {
      expect(Object.keys(answer).sort()).toEqual([...MEDIA_FIELDS].sort());
      for (const name of STORAGE) expect(answer).not.toHaveProperty(name);
    }
  });

  it('7: a presigned upload URL used again after complete cannot replace the checked file', async () => {
    const site = await newSite();
    const start = await admin.post(`/sites/${site.id}/media/presigned-upload`, {
      fileName: 'logo.png',
      contentType: 'image/png',
      size: PNG.length,
    });
    const { id, uploadUrl, headers } = start.json.result;
    expect((await fetch(uploadUrl, { method: 'PUT', headers, body: PNG })).status).toBe(200);
    const done = await admin.post(`/media/${id}/complete`);
    expect(done).toAnswer(200);
    // Same length, other bytes: what the checked file must never become.
    const swapped = Buffer.from(`<script>alert(1)</script>${' '.repeat(PNG.length - 25)}`);
    expect(swapped.length).toBe(PNG.length);
    expect((await fetch(uploadUrl, { method: 'PUT', headers, body: swapped })).status).toBe(200);
    const served = await s3().send(new GetObjectCommand({ Bucket: config.mediaBucket, Key: done.json.result.key }));
    expect(Buffer.from(await served.Body!.transformToByteArray()).equals(PNG)).toBe(true);
    const signed = await admin.get(`/media/${id}/presigned`);
    expect(Buffer.from(await (await fetch(signed.json.result.url)).arrayBuffer()).equals(PNG)).toBe(true);
    // Completing again changes nothing.
    expect((await admin.post(`/media/${id}/complete`)).json.result.key).toBe(done.json.result.key);
  });

  it('8: markup is refused as text; files are named by their checked type and served as downloads', async () => {
    const site = await newSite();
    const html = Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>');
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>');
    const fragment = Buffer.from('Hello\n<img src=x onerror=alert(1)>\n');
    for (const [name, data] of [
      ['page.html', html],
      ['image.svg', svg],
      ['notes.txt', fragment],
    ] as const) {
      const res = await upload(site.id, multipart('file', name, 'text/plain', data));
      expect(res, name).toAnswer(415);
    }
    const start = await admin.post(`/sites/${site.id}/media/presigned-upload`, {
      fileName: 'page.html',
      contentType: 'text/plain',
      size: html.length,
    });
    await fetch(start.json.result.uploadUrl, { method: 'PUT', headers: start.json.result.headers, body: html });
    expect(await admin.post(`/media/${start.json.result.id}/complete`)).toAnswer(415);

    // Plain text (an e-mail address in angle brackets is not markup) under an .html name is stored as .txt.
    const text = await upload(
      site.id,
      multipart('file', 'page.html', 'text/plain', Buffer.from('Ann <ann@example.com>\n')),
    );
    expect(text).toAnswer(201);
    const [stored] = (await admin.get(`/sites/${site.id}/media`)).json.result.items;
    expect(stored).toMatchObject({ fileName: 'page.txt', contentType: 'text/plain' });
    expect(stored.key).toMatch(/page\.txt$/);
    const head = await s3().send(new HeadObjectCommand({ Bucket: config.mediaBucket, Key: stored.key }));
    expect(head.ContentDisposition).toBe('attachment; filename="page.txt"');
    expect(head.ContentType).toBe('text/plain');
    const fetched = await fetch(stored.url);
    expect(fetched.headers.get('content-disposition')).toBe('attachment; filename="page.txt"');
    expect(fetched.headers.get('content-type')).toBe('text/plain');
  });

  it('9: content blocks and settings keep markup only in sanitized html fields; links are checked', async () => {
    const site = await newSite();
    const page = await newPage(site.id, { slug: 'blocks' });
    const put = (contentBlocks: unknown) =>
      admin.put(`/pages/${page.id}/translations/en`, { title: 'Blocks', contentBlocks: JSON.stringify(contentBlocks) });
    for (const bad of [
      [{ type: 'text', text: '<img src=x onerror=alert(1)>' }],
      [{ type: 'hero', title: 'Hi', items: [{ caption: '</p><script>alert(1)</script>' }] }],
      [{ type: 'image', src: 'javascript:alert(1)' }],
      [{ type: 'link', href: '//evil.example' }],
      [{ type: 'cta', buttonUrl: 'data:text/html,<script>alert(1)</script>' }],
      [{ text: 'no type' }],
      { type: 'text', text: 'not an array' },
    ]) {
      const res = await put(bad);
      expect(res, JSON.stringify(bad)).toAnswer(400, 'VALIDATION_ERROR');
    }
    // What an HTML parser reads as a tag is markup, even where a person meant an address.
    expect(await put([{ type: 'text', text: 'Ann <ann@example.com>' }])).toAnswer(400);
    const ok = await put([
      { type: 'text', text: 'a < b, 3<4 & "quotes"' },
      { type: 'rich-text', html: '<p onclick="x()">Hi<script>alert(1)</script> <a href="javascript:y()">x</a></p>' },
      { type: 'image', src: '/media/logo.png', alt: 'Logo' },
    ]);
    expect(ok).toAnswer(200);
    const blocks = JSON.parse(ok.json.result.translations[0].contentBlocks);
    expect(blocks[0].text).toBe('a < b, 3<4 & "quotes"');
    expect(blocks[1].html).not.toMatch(/script|onclick|javascript:/);
    expect(blocks[1].html).toContain('<p>Hi');
    const shown = await pub(`/${site.id}/pages/blocks`);
    expect(shown).toAnswer(200);
    expect(shown.json.result.contentBlocks).not.toMatch(/script|onclick|javascript:/);

    const withSettings = (settings: unknown) =>
      admin.post(`/sites/${site.id}/pages`, pageBody({ settings: JSON.stringify(settings) }));
    expect(await withSettings({ footer: '<script>alert(1)</script>' })).toAnswer(400);
    expect(await withSettings({ backgroundUrl: '/\\evil.example' })).toAnswer(400);
    const settled = await withSettings({ layout: 'wide', banner: { html: '<b>Sale</b><script>x()</script>' } });
    expect(settled).toAnswer(201);
    expect(JSON.parse(settled.json.result.settings)).toEqual({ layout: 'wide', banner: { html: '<b>Sale</b>' } });
  });

  it('10: links that claim to be site paths cannot point at another host', async () => {
    const site = await newSite();
    const page = await newPage(site.id);
    for (const url of [
      '//evil.example',
      '/\\evil.example',
      '/\\/evil.example',
      '/\t/evil.example',
      'https:evil.example',
    ]) {
      const nav = await admin.put(`/sites/${site.id}/navigation/header`, { items: [{ label: 'X', url }] });
      expect(nav, url).toAnswer(400);
      const tr = await admin.put(`/pages/${page.id}/translations/en`, { ...translation('T'), ogImageUrl: url });
      expect(tr, url).toAnswer(400);
      const post = await admin.post(`/sites/${site.id}/blog`, {
        slug: `b-${tag()}`,
        authorName: 'A',
        category: 'c',
        tags: [],
        isPublished: false,
        featuredImageUrl: url,
      });
      expect(post, url).toAnswer(400);
    }
    for (const url of ['/', '/about/team?x=1#top', 'https://cdn.example.com/a.png'])
      expect((await admin.put(`/sites/${site.id}/navigation/footer`, { items: [{ label: 'X', url }] })).status).toBe(
        200,
      );
  });

  it('11: deeply nested or oversized themeConfig and metadata are 400, not 500', async () => {
    const nest = (depth: number): unknown => (depth === 0 ? 1 : { a: nest(depth - 1) });
    for (const over of [
      { themeConfig: nest(40) },
      { metadata: nest(17) },
      { metadata: JSON.stringify(nest(200)) },
      { themeConfig: { big: 'x'.repeat(17_000) } },
    ]) {
      const res = await admin.post('/sites', siteBody(over));
      expect(res).toAnswer(400, 'VALIDATION_ERROR');
    }
    expect(await admin.post('/sites', siteBody({ metadata: nest(16) }))).toAnswer(201);
  });

  it('13: any JSON object round-trips as themeConfig or metadata, empty keys at any depth included', async () => {
    const odd = { '': 1, a: { '': { '': [1, { '': null }] } }, 'with space': true, '#': '#' };
    const site = await newSite({ themeConfig: odd, metadata: JSON.stringify(odd) });
    const got = await admin.get(`/sites/${site.id}`);
    expect(got.json.result.themeConfig).toEqual(odd);
    expect(got.json.result.metadata).toEqual(odd);
    // The theme routes keep working on such a site, and keep its other keys.
    expect(await admin.put(`/sites/${site.id}/theme`, { primaryColor: '#123' })).toAnswer(200);
    expect((await admin.get(`/sites/${site.id}`)).json.result.themeConfig).toEqual({
      ...odd,
      primaryColor: '#123',
      preset: null,
    });
    const moved = await admin.put(`/sites/${site.id}`, siteBody({ domain: site.domain, metadata: { '': { '': 2 } } }));
    expect(moved).toAnswer(200);
    expect(moved.json.result.metadata).toEqual({ '': { '': 2 } });
    expect((await pub(`/resolve?domain=${site.domain}`)).json.result.metadata).toEqual({ '': { '': 2 } });
  });

  it('14: admin post answers, lists included, name their translated locales as documented', async () => {
    const site = await newSite();
    const post = (
      await admin.post(`/sites/${site.id}/blog`, {
        slug: 'p',
        authorName: 'A',
        category: 'c',
        tags: [],
        isPublished: true,
      })
    ).json.result;
    expect(post.locales).toEqual([]);
    await admin.put(`/blog/${post.id}/translations/fr`, { title: 'Bonjour', bodyHtml: '<p>x</p>' });
    const en = await admin.put(`/blog/${post.id}/translations/en`, { title: 'Hello', bodyHtml: '<p>x</p>' });
    expect(en.json.result.locales).toEqual(['en', 'fr']);
    const [item] = (await admin.get(`/sites/${site.id}/blog`)).json.result.items;
    expect(item).toMatchObject({ id: post.id, locales: ['en', 'fr'], translations: [] });
    expect((await admin.get(`/sites/${site.id}/blog/${post.id}`)).json.result.locales).toEqual(['en', 'fr']);
  });
});

describe('public page by slug', () => {
  it('reads only the top-level page of the slug when it is published; else a published child of that slug', async () => {
    const site = await newSite();
    const top = await newPage(site.id, { slug: 'about' });
    const child = await newPage(site.id, { slug: 'about', parentId: top.id });
    const other = await newPage(site.id, { slug: 'big' });
    await admin.put(`/pages/${top.id}/translations/en`, translation('Top'));
    await admin.put(`/pages/${child.id}/translations/en`, translation('Child'));
    await admin.put(`/pages/${other.id}/translations/en`, translation('x'.repeat(150)));

    const spy = vi.spyOn(ddb(), 'send');
    const shown = await pub(`/${site.id}/pages/about`);
    const queried = spy.mock.calls
      .map(([command]) => command)
      .filter((c) => c.constructor.name === 'QueryCommand')
      .map((c) => (c.input as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues);
    spy.mockRestore();
    expect(shown.json.result).toMatchObject({ id: top.id, title: 'Top' });
    expect(queried).toEqual([expect.objectContaining({ ':prefix': `PAGE#${top.id}` })]);

    await admin.patch(`/sites/${site.id}/pages/${top.id}/publish`);
    expect((await pub(`/${site.id}/pages/about`)).json.result).toMatchObject({ id: child.id, title: 'Child' });
    await admin.patch(`/sites/${site.id}/pages/${child.id}/publish`);
    expect(await pub(`/${site.id}/pages/about`)).toAnswer(404);
    expect(await pub(`/${site.id}/pages/nothing-here`)).toAnswer(404);
  });
});
