import { getSite } from '#areas/content/store.ts';

/**
 * A site's posts, forms and media are deleted before the site itself, so a list with anything in it
 * proves the site exists: the site is read, for its 404, only when the page comes back empty.
 */
export async function listOfSite<T extends { items: unknown[]; totalCount: number }>(
  siteId: string,
  list: (id: string) => Promise<T>,
): Promise<T> {
  const page = await list(siteId.toLowerCase());
  if (!page.items.length && !page.totalCount) await getSite(siteId);
  return page;
}
