import type { PageRecord } from './records.ts';

/** Siblings by sortOrder, then slug. */
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
