import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/**
 * A website on loopback that a test rewrites as it goes: each path answers what the test set (a
 * status, headers, a body, an ETag that answers 304 when asked with it), and every request is logged
 * with its headers, so a test can prove what was fetched and what was not.
 */
export interface Answer {
  status?: number;
  type?: string;
  body?: string | Buffer;
  etag?: string;
  location?: string;
  headers?: Record<string, string>;
}

export interface LoggedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  at: number;
}

export async function startLoopbackSite() {
  const pages = new Map<string, Answer>();
  const log: LoggedRequest[] = [];
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    log.push({ path, headers: req.headers, at: Date.now() });
    const a = pages.get(path);
    if (!a) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (a.etag && req.headers['if-none-match'] === a.etag) {
      res.writeHead(304, { etag: a.etag }).end();
      return;
    }
    res
      .writeHead(a.status ?? 200, {
        'content-type': a.type ?? 'text/html; charset=utf-8',
        ...(a.etag ? { etag: a.etag } : {}),
        ...(a.location ? { location: a.location } : {}),
        ...a.headers,
      })
      .end(a.body ?? '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    pages,
    log,
    /** The paths asked since the log was last cleared. */
    asked: () => log.map((l) => l.path),
    clear: () => {
      log.length = 0;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** An article page with the chrome a real site has around it. */
export const articlePage = (title: string, text: string, links: string[] = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body>
<header><nav>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')} Home Pricing Blog</nav></header>
<div id="cookie-banner">We use cookies zqcookiebanner. Accept all.</div>
<main><article><h1>${title}</h1><p>${text}</p><p>${text} This paragraph carries more of the article so the reader sees a body of text worth keeping.</p></article></main>
<footer>Copyright zqfooterchrome. All rights reserved.</footer></body></html>`;

export const urlset = (entries: { loc: string; lastmod?: string }[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries
    .map((e) => `<url><loc>${e.loc}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ''}</url>`)
    .join('')}</urlset>`;

export const sitemapIndex = (locs: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
    .map((l) => `<sitemap><loc>${l}</loc></sitemap>`)
    .join('')}</sitemapindex>`;

export const gz = (s: string) => gzipSync(Buffer.from(s));
