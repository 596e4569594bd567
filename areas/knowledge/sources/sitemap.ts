import { isGzip, gunzipBounded } from './fetch-page.ts';
import { SITEMAP_MAX_BYTES } from './source-vocabulary.ts';

/**
 * A sitemap (urlset) or sitemap index (sitemapindex), gzip or not, read with a bounded scan of its
 * `<loc>` and `<lastmod>` elements (the protocol's whole grammar: no DTDs, no entities past the five
 * XML ones, so a regular reader is enough and cannot be made to expand).
 */
export interface SitemapEntry {
  loc: string;
  lastmod: string | null;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const xmlText = (s: string) =>
  s
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
    .replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ENTITIES[e]!)
    .trim();
const tag = (block: string, name: string) => {
  const m = new RegExp(`<(?:[\\w-]+:)?${name}\\b[^>]*>([\\s\\S]*?)</(?:[\\w-]+:)?${name}>`, 'i').exec(block);
  return m ? xmlText(m[1]!) : null;
};

export function parseSitemap(raw: Buffer): { kind: 'index' | 'urlset'; entries: SitemapEntry[] } {
  const xml = (isGzip(raw) ? gunzipBounded(raw, SITEMAP_MAX_BYTES) : raw).toString('utf8');
  const kind = /<(?:[\w-]+:)?sitemapindex\b/i.test(xml) ? 'index' : 'urlset';
  const element = kind === 'index' ? 'sitemap' : 'url';
  const entries: SitemapEntry[] = [];
  const re = new RegExp(`<(?:[\\w-]+:)?${element}\\b[^>]*>([\\s\\S]*?)</(?:[\\w-]+:)?${element}>`, 'gi');
  for (const m of xml.matchAll(re)) {
    const loc = tag(m[1]!, 'loc');
    if (loc) entries.push({ loc, lastmod: tag(m[1]!, 'lastmod') });
  }
  return { kind, entries };
}

/** A lastmod as a time (W3C datetime: a day, or a time with its zone), or null when it is not one. */
export const lastmodTime = (v: string | null) => {
  const t = v ? Date.parse(v) : Number.NaN;
  return Number.isFinite(t) ? t : null;
};
