import type { Item } from './store.ts';

/** Page and translation records as stored in the site's partition, and their API views. */
export interface PageRecord {
  id: string;
  siteId: string;
  slug: string;
  pageType: number;
  parentId: string | null;
  sortOrder: number;
  isPublished: boolean;
  settings: string;
  createdAt: string;
  updatedAt: string;
}

export interface PageTranslation {
  locale: string;
  title: string;
  metaTitle: string | null;
  metaDescription: string | null;
  ogImageUrl: string | null;
  contentBlocks: string;
  updatedAt: string;
}

export const isPageItem = (i: Item) => /^PAGE#[^#]+$/.test(String(i.sk));
export const isTranslationOf = (kind: 'PAGE' | 'POST', id: string) => (i: Item) =>
  String(i.sk).startsWith(`${kind}#${id}#TR#`);

export const toPage = (i: Item): PageRecord => ({
  id: i.id as string,
  siteId: i.siteId as string,
  slug: i.slug as string,
  pageType: Number(i.pageType ?? 0),
  parentId: (i.parentId as string | null) ?? null,
  sortOrder: Number(i.sortOrder ?? 0),
  isPublished: i.isPublished === true,
  settings: (i.settings as string) ?? '{}',
  createdAt: i.createdAt as string,
  updatedAt: i.updatedAt as string,
});

export const toPageTranslation = (i: Item): PageTranslation => ({
  locale: i.locale as string,
  title: i.title as string,
  metaTitle: (i.metaTitle as string | null) ?? null,
  metaDescription: (i.metaDescription as string | null) ?? null,
  ogImageUrl: (i.ogImageUrl as string | null) ?? null,
  contentBlocks: i.contentBlocks as string,
  updatedAt: i.updatedAt as string,
});

/** Pages and their translations from one query of the site's `PAGE#` items. */
export function splitPages(items: Item[]) {
  const pages = items.filter(isPageItem).map(toPage);
  const translations = new Map<string, PageTranslation[]>();
  for (const i of items) {
    if (isPageItem(i)) continue;
    const pageId = i.pageId as string;
    translations.set(pageId, [...(translations.get(pageId) ?? []), toPageTranslation(i)]);
  }
  return { pages, translations };
}

export const bySortOrder = (a: PageRecord, b: PageRecord) => a.sortOrder - b.sortOrder || a.slug.localeCompare(b.slug);

/** The canonical spelling of a BCP 47 tag (en-us -> en-US). */
export const canonicalLocale = (tag: string) => Intl.getCanonicalLocales(tag)[0]!;

/** The translation in `locale`, else in the site's default locale, else none. */
export function pickTranslation<T extends { locale: string }>(
  list: T[] | undefined,
  locale: string | undefined,
  fallback: string,
): T | undefined {
  const wanted = locale ? canonicalLocale(locale) : fallback;
  return list?.find((t) => t.locale === wanted) ?? list?.find((t) => t.locale === fallback);
}
