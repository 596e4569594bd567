import { afterEach, describe, expect, it, vi } from 'vitest';
import { gzipSync } from 'node:zlib';
import { extractArticle } from '#areas/knowledge/sources/extract.ts';
import { gunzipBounded } from '#areas/knowledge/sources/fetch-page.ts';
import { Crawler } from '#areas/knowledge/sources/robots.ts';
import { lastmodTime, parseSitemap } from '#areas/knowledge/sources/sitemap.ts';

/** The pieces of a source's sync that read what a site sends: sitemaps, gzip, articles, the pace. */
describe('sitemaps', () => {
  it('reads a urlset and an index, gzip or not, with entities, CDATA and namespaced tags', () => {
    const set = parseSitemap(
      Buffer.from(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://a.example/x?a=1&amp;b=2</loc><lastmod>2026-11-01</lastmod></url>' +
          '<url><loc><![CDATA[https://a.example/y]]></loc></url><url><lastmod>2026-01-01</lastmod></url></urlset>',
      ),
    );
    expect(set).toEqual({
      kind: 'urlset',
      entries: [
        { loc: 'https://a.example/x?a=1&b=2', lastmod: '2026-11-01' },
        { loc: 'https://a.example/y', lastmod: null },
      ],
    });
    const index = parseSitemap(
      gzipSync(
        '<sm:sitemapindex xmlns:sm="x"><sm:sitemap><sm:loc>https://a.example/s1.xml.gz</sm:loc></sm:sitemap></sm:sitemapindex>',
      ),
    );
    expect(index).toEqual({ kind: 'index', entries: [{ loc: 'https://a.example/s1.xml.gz', lastmod: null }] });
  });

  it('reads lastmod as W3C datetimes, and nothing else', () => {
    expect(lastmodTime('2026-11-01')).toBe(Date.parse('2026-11-01T00:00:00Z'));
    expect(lastmodTime('2026-11-01T10:00:00+01:00')).toBe(Date.parse('2026-11-01T09:00:00Z'));
    expect(lastmodTime('yesterday')).toBeNull();
    expect(lastmodTime(null)).toBeNull();
  });

  it('refuses a gzip bomb past its limit instead of unpacking it', () => {
    const bomb = gzipSync(Buffer.alloc(5 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(10_000);
    expect(() => gunzipBounded(bomb, 1024 * 1024)).toThrow(/unpacks to more than 1048576 bytes/);
    expect(() => gunzipBounded(Buffer.from([0x1f, 0x8b, 1, 2]), 1024)).toThrow(/not a readable gzip/);
  });
});

describe('articles', () => {
  it('keeps the article, title and canonical URL; leaves navigation, footer and cookie banner out; hashes the text only', async () => {
    const page = (
      footer: string,
    ) => `<html><head><title>Returns | Shop</title><link rel="canonical" href="/help/returns"></head><body>
      <nav><a href="/a">A</a> <a href="mailto:x@y.z">mail</a></nav><div class="cookie-consent">Accept zqcookies</div>
      <article><h1>Returns</h1><p>Send zqitems back within 30 days of delivery for a full refund to your card.</p></article>
      <footer>${footer}</footer></body></html>`;
    const a = await extractArticle(page('zqfooter 2025'), new URL('https://shop.example/help/r?x=1'));
    expect(a.canonical).toBe('https://shop.example/help/returns');
    expect(a.title).toMatch(/Returns/);
    expect(a.html).toContain('zqitems');
    for (const chrome of ['zqcookies', 'zqfooter', 'href="/a"']) expect(a.html).not.toContain(chrome);
    expect(a.links).toEqual(['/a']);
    expect(a.noindex).toBe(false);
    const b = await extractArticle(page('zqfooter 2026'), new URL('https://shop.example/help/r?x=1'));
    expect(b.hash).toBe(a.hash);
  });

  it('follows no links of a nofollow page and marks a noindex one', async () => {
    const a = await extractArticle(
      '<html><head><meta name="robots" content="noindex, nofollow"></head><body><p>x <a href="/b">b</a></p></body></html>',
      new URL('https://s.example/'),
    );
    expect(a).toMatchObject({ noindex: true, links: [] });
  });
});

describe('the per-host pace', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('spaces requests to one host by the pace, and leaves other hosts alone', async () => {
    vi.stubEnv('KNOWLEDGE_SOURCE_PACE_MS', '120');
    const c = new Crawler();
    const at: Record<string, number[]> = { a: [], b: [] };
    const t0 = Date.now();
    await Promise.all([
      (async () => {
        for (let i = 0; i < 3; i++) {
          await c.pace('a.example');
          at.a!.push(Date.now() - t0);
        }
      })(),
      (async () => {
        await c.pace('b.example');
        at.b!.push(Date.now() - t0);
      })(),
    ]);
    expect(at.b![0]).toBeLessThan(60);
    expect(at.a![1]! - at.a![0]!).toBeGreaterThanOrEqual(110);
    expect(at.a![2]! - at.a![1]!).toBeGreaterThanOrEqual(110);
  });
});

describe('robots.txt', () => {
  const serve = async (robots: { status: number; body?: string }) => {
    const http = await import('node:http');
    const server = http.createServer((req, res) => {
      if (req.url === '/robots.txt')
        res.writeHead(robots.status, { 'content-type': 'text/plain' }).end(robots.body ?? '');
      else res.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    return { url: (p: string) => new URL(`http://127.0.0.1:${port}${p}`), close: () => server.close() };
  };
  afterEach(() => vi.unstubAllEnvs());

  it('follows its rules for the platform agent, allows all when absent, and forbids the host when it cannot be read', async () => {
    vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');
    vi.stubEnv('KNOWLEDGE_SOURCE_PACE_MS', '0');
    const rules = await serve({
      status: 200,
      body: 'User-agent: SaaSPlatformKnowledgeBot\nDisallow: /drafts/\n\nUser-agent: *\nDisallow: /',
    });
    const absent = await serve({ status: 404 });
    const broken = await serve({ status: 503 });
    try {
      const c = new Crawler();
      expect(await c.refuse(rules.url('/help/a'))).toBeNull();
      expect(await c.refuse(rules.url('/drafts/a'))).toMatch(/robots\.txt does not allow \/drafts\/a/);
      expect(await c.refuse(absent.url('/anything'))).toBeNull();
      expect(await c.refuse(broken.url('/anything'))).toMatch(/robots\.txt does not allow/);
    } finally {
      for (const s of [rules, absent, broken]) s.close();
    }
  });
});
