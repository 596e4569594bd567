import { notFound } from '#shared/http/errors.ts';
import { getSite, siteItems } from './lookup.ts';
import { isPostItem, splitPages, toPost, toPostTranslation, type SiteRecord } from './records.ts';

/**
 * A site's published content as the knowledge area reads it (its port, no HTTP): each published
 * page and each published post (publishedAt past) in each locale it is translated into, as HTML
 * with its title and public URL. One Query of the site's partition.
 */
export interface SiteContentItem {
  url: string;
  locale: string;
  title: string;
  html: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
/** Keys of a block that hold what a visitor reads; the rest (ids, types, URLs, styles) is structure. */
const TEXT_KEYS =
  /^(text|title|heading|subheading|subtitle|content|body|html|caption|label|description|quote|question|answer|items?)$/i;

/** The readable strings of a page's content blocks (stored as JSON text), each a paragraph. */
function blocksHtml(blocks: string): string {
  let value: unknown;
  try {
    value = JSON.parse(blocks);
  } catch {
    return '';
  }
  const out: string[] = [];
  const walk = (v: unknown, key: string | null, depth: number) => {
    if (depth > 32 || out.length > 10_000) return;
    if (typeof v === 'string') {
      if (key !== null && TEXT_KEYS.test(key) && v.trim())
        out.push(/<[a-z][\s\S]*>/i.test(v) ? v : `<p>${escapeHtml(v)}</p>`);
      return;
    }
    if (Array.isArray(v)) for (const x of v) walk(x, key, depth + 1);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k, depth + 1);
  };
  walk(value, null, 0);
  return out.join('\n');
}

const page = (title: string, body: string) =>
  `<html><head><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;

/** The site's published content, or null when the site is not the tenant's (or does not exist). */
export async function publishedSiteContent(tenantId: string, siteId: string): Promise<SiteContentItem[] | null> {
  let site: SiteRecord;
  try {
    site = await getSite(siteId, false);
  } catch (err) {
    if (notFound.is(err)) return null;
    throw err;
  }
  if (site.tenantId !== tenantId) return null;
  const items = await siteItems(site.id, '', false);
  const origin = `https://${site.domain}`;
  const out: SiteContentItem[] = [];
  const { pages, translations } = splitPages(items.filter((i) => String(i.sk).startsWith('PAGE#')));
  for (const p of pages.filter((x) => x.isPublished))
    for (const t of translations.get(p.id) ?? [])
      out.push({
        url: `${origin}/${t.locale}/${p.slug}`,
        locale: t.locale,
        title: t.title,
        html: page(t.title, blocksHtml(t.contentBlocks)),
      });
  const now = new Date().toISOString();
  for (const post of items.filter(isPostItem).map(toPost)) {
    if (!post.isPublished || !post.publishedAt || post.publishedAt > now) continue;
    const prefix = `POST#${post.id}#TR#`;
    for (const t of items.filter((i) => String(i.sk).startsWith(prefix)).map(toPostTranslation))
      out.push({
        url: `${origin}/${t.locale}/blog/${post.slug}`,
        locale: t.locale,
        title: t.title,
        html: page(t.title, t.bodyHtml),
      });
  }
  return out;
}
