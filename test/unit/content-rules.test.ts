import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentJsonIssues, deeperThan, sanitizeContentJson } from '#areas/content/blocks.ts';
import { detectType, storedFileName } from '#areas/content/file-types.ts';
import { mediaView, toMedia } from '#areas/content/records.ts';
import { LOCALE, SITE_URL } from '#areas/content/vocabulary.ts';
import { buildOpenApiDocument, type Operation } from '#api/openapi/document.ts';
import { contentAdminRoutes } from '#areas/content/routes/admin.ts';
import { contentPublicRoutes } from '#areas/content/routes/public.ts';
import { routes } from '#local/routes.ts';

describe('site links', () => {
  it('take http(s) URLs and paths of the site, never another host spelled as a path', () => {
    for (const ok of ['/', '/about', '/a/b?x=1#y', 'https://example.com', 'http://example.com/a.png'])
      expect(SITE_URL.test(ok), ok).toBe(true);
    for (const bad of [
      '//evil.example',
      '/\\evil.example',
      '/\\/evil.example',
      '/a\\b',
      '/\t/evil.example',
      '/\n/evil.example',
      '/\u0000/x',
      'https:evil.example',
      'https:///evil.example',
      'javascript:alert(1)',
      'about',
      '/a b',
    ])
      expect(SITE_URL.test(bad), JSON.stringify(bad)).toBe(false);
  });
});

describe('locale', () => {
  it('is the whole rule: every tag its pattern allows is a valid BCP 47 tag', () => {
    fc.assert(
      fc.property(fc.stringMatching(LOCALE), (tag) => {
        expect(Intl.getCanonicalLocales(tag)).toHaveLength(1);
      }),
      { numRuns: 2000 },
    );
    for (const ok of ['en', 'en-US', 'de-de', 'pt-BR', 'zh-Hant-TW', 'es-419', 'de-CH-1996', 'sl-rozaj'])
      expect(LOCALE.test(ok), ok).toBe(true);
    for (const bad of ['en-12', 'e', 'english-please', 'en-US-US-US', 'en_US'])
      expect(LOCALE.test(bad), bad).toBe(false);
  });

  it('is documented with the pattern the server applies, on every content route that takes one', () => {
    const doc = buildOpenApiDocument(routes);
    const schemas = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).flatMap(
        (op) => ((op as Operation).parameters as { name: string; schema: { pattern?: string } }[] | undefined) ?? [],
      ),
    );
    const locales = schemas.filter((p) => p.name === 'locale');
    expect(locales.length).toBeGreaterThanOrEqual(6);
    for (const p of locales) expect(p.schema.pattern).toBe(LOCALE.source);
  });
});

describe('declared error statuses', () => {
  it('list the 404 of the routes that name a site in their query or body', () => {
    const doc = buildOpenApiDocument(routes);
    expect(Object.keys(doc.paths['/api/content/sites/resolve']!.get!.responses)).toContain('404');
    expect(Object.keys(doc.paths['/api/content/admin/cache/invalidate']!.post!.responses)).toContain('404');
    expect(Object.keys(doc.paths['/api/content/admin/media/{id}/complete']!.post!.responses)).toEqual(
      expect.arrayContaining(['413', '415']),
    );
  });
});

describe('content blocks and settings', () => {
  it('keep markup out of text, check links and bound nesting', () => {
    expect(contentJsonIssues([{ type: 'text', text: 'a < b' }], 'blocks')).toEqual([]);
    expect(contentJsonIssues([{ type: 'rich', html: '<script>x</script>' }], 'blocks')).toEqual([]);
    expect(contentJsonIssues([{ type: 'text', text: '<b>x</b>' }], 'blocks')[0]!.path).toEqual([0, 'text']);
    expect(contentJsonIssues([{ type: 'x', list: ['ok', '<!-- -->'] }], 'blocks')[0]!.path).toEqual([0, 'list', 1]);
    expect(contentJsonIssues([{ type: 'x', html: ['<p>'] }], 'blocks')).toHaveLength(1);
    expect(contentJsonIssues([{ type: 'img', imageUrl: '//evil.example' }], 'blocks')[0]!.path).toEqual([
      0,
      'imageUrl',
    ]);
    expect(contentJsonIssues([{ type: 'Bad Type' }], 'blocks')).toHaveLength(1);
    expect(contentJsonIssues({ type: 'x' }, 'blocks')).toHaveLength(1);
    expect(contentJsonIssues('text', 'settings')).toHaveLength(1);
    expect(contentJsonIssues({ a: [1, { b: 'ok' }] }, 'settings')).toEqual([]);
    const nest = (n: number): unknown => (n === 0 ? 'x' : [nest(n - 1)]);
    expect(deeperThan(nest(16), 16)).toBe(false);
    expect(deeperThan(nest(17), 16)).toBe(true);
    expect(contentJsonIssues(nest(17), 'settings')).toHaveLength(1);
  });

  it('sanitize only html fields', async () => {
    const out = await sanitizeContentJson([{ type: 'x', html: 'A', text: 'B', nested: { html: 'C' } }], async (h) =>
      h.toLowerCase(),
    );
    expect(out).toEqual([{ type: 'x', html: 'a', text: 'B', nested: { html: 'c' } }]);
  });
});

describe('media files', () => {
  const text = (s: string) => Buffer.from(s);
  it('refuse markup declared as text, anywhere in the bytes read', () => {
    for (const markup of [
      '<!DOCTYPE html><p>x</p>',
      '<html>',
      '  <svg onload="x()">',
      '<?xml version="1.0"?><svg/>',
      'hello\n<script>alert(1)</script>',
      'x <IMG SRC=x onerror=y()>',
      '<!-- comment -->',
      'a,b\n<a href="x">c</a>',
    ])
      expect(detectType(text(markup), 'text/plain'), markup).toBeNull();
    for (const plain of ['a < b', 'Ann <ann@example.com>', 'x<y', 'if (a<b) {}', 'name,age\nAnn,3'])
      expect(detectType(text(plain), 'text/plain'), plain).toBe('text/plain');
  });

  it('are named by their checked type', () => {
    expect(storedFileName('page.html', 'text/plain')).toBe('page.txt');
    expect(storedFileName('image.svg', 'image/png')).toBe('image.png');
    expect(storedFileName('photo.JPEG', 'image/jpeg')).toBe('photo.jpeg');
    expect(storedFileName('report', 'application/pdf')).toBe('report.pdf');
    expect(storedFileName('data.csv', 'text/csv')).toBe('data.csv');
    expect(storedFileName('../x.tar.gz', 'text/plain')).toBe('x.tar.txt');
  });

  it('answer exactly the documented media fields, whatever the stored item holds', () => {
    const item = {
      pk: 'PLATFORM#MEDIA#1',
      sk: 'ITEM',
      gsi1pk: 'PLATFORM#SITE#s#MEDIA',
      gsi1sk: 'x',
      id: '1',
      siteId: 's',
      tenantId: 't',
      folder: 'general',
      fileName: 'a.png',
      contentType: 'image/png',
      size: 3,
      status: 'ready',
      key: 'sites/s/general/1-a.png',
      uploadKey: null,
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    const documented = contentAdminRoutes.find((r) => r.id === 'content.media.complete')!.response;
    const fields = Object.keys((documented as unknown as { shape: Record<string, unknown> }).shape).sort();
    expect(Object.keys(mediaView(toMedia(item), 'https://signed')).sort()).toEqual(fields);
  });
});

describe('content route files', () => {
  it('declare a scope on every route: platform for administration, public for public reads', () => {
    for (const r of contentAdminRoutes) expect(r.scope, r.id).toEqual({ kind: 'platform' });
    for (const r of contentPublicRoutes) expect(r.scope, r.id).toEqual({ kind: 'public' });
  });
});
