import { createHash } from 'node:crypto';

/**
 * A web page reduced to its article (Mozilla's Readability over linkedom's DOM, both loaded on first
 * use): title and canonical URL kept, navigation, headers, footers and cookie banners left out. The
 * article's HTML becomes the document's original (the worker's HTML parser reads it as an upload's);
 * its text, whitespace folded, is what the content hash is taken of, so a page whose chrome changed
 * (a date in the footer, a new menu item) costs nothing.
 */
export interface Extracted {
  title: string;
  canonical: string | null;
  html: string;
  hash: string;
  links: string[];
  noindex: boolean;
}

const CHROME =
  'script, style, noscript, template, nav, header, footer, aside, form, iframe, [role="navigation"], ' +
  '[role="banner"], [role="contentinfo"], [aria-modal="true"], [id*="cookie" i], [class*="cookie" i], ' +
  '[id*="consent" i], [class*="consent" i]';

const fold = (text: string) => text.replace(/\s+/g, ' ').trim();
export const hashOf = (text: string | Uint8Array) => createHash('sha256').update(text).digest('hex');
const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

export async function extractArticle(html: string, pageUrl: URL): Promise<Extracted> {
  const [{ parseHTML }, reader] = await Promise.all([import('linkedom'), import('@mozilla/readability')]);
  // CommonJS: Node names its exports; built as one ESM file beside a bundle, they sit on its default.
  const Readability =
    reader.Readability ??
    (reader as unknown as { default: { Readability: typeof reader.Readability } }).default.Readability;
  const { document } = parseHTML(html);
  const meta = (document.querySelector('meta[name="robots" i]')?.getAttribute('content') ?? '').toLowerCase();
  const nofollow = meta.includes('nofollow') || meta.includes('none');
  const links = nofollow
    ? []
    : [...document.querySelectorAll('a[href]')]
        .map((a: { getAttribute(name: string): string | null }) => a.getAttribute('href') ?? '')
        .filter((h: string) => h && !/^(mailto|tel|javascript|data):/i.test(h));
  const canonicalHref = document.querySelector('link[rel="canonical" i]')?.getAttribute('href');
  let canonical: string | null = null;
  try {
    canonical = canonicalHref ? new URL(canonicalHref, pageUrl).toString() : null;
  } catch {}
  const pageTitle = fold(document.querySelector('title')?.textContent ?? '');
  for (const el of [...document.querySelectorAll(CHROME)]) el.remove();
  // Readability changes the DOM it reads: links and chrome were taken first.
  const article = new Readability(document as never, { charThreshold: 0 }).parse();
  const body = article?.content ?? document.body?.innerHTML ?? '';
  const text = fold(article?.textContent ?? document.body?.textContent ?? '');
  const title = fold(article?.title || pageTitle) || pageUrl.pathname;
  return {
    title: title.slice(0, 300),
    canonical,
    html: `<html><head><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    hash: hashOf(`${title}\n${text}`),
    links,
    noindex: meta.includes('noindex') || meta.includes('none'),
  };
}
