import { keysById, queryItems } from '#shared/data/query.ts';
import { getOr404 } from '#shared/data/read.ts';
import { notFound } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import { siteContent, siteKey, siteOfPartition, sk, toSite } from './records.ts';
import type { Item } from '#shared/data/keys.ts';

/** A site, or 404. Consistent unless said (admin writes read their state before changing it). */
export const getSite = async (id: string, consistent = true) =>
  toSite(await getOr404(siteKey(id), 'Site', { consistent }));

/** Items of a site's partition whose sort key starts with `prefix` (all of them for ''). */
export const siteItems = (siteId: string, prefix: string, consistent = true) =>
  queryItems<Item>({
    TableName: config.tableName,
    KeyConditionExpression: prefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
    ExpressionAttributeValues: { ':pk': siteContent(siteId), ...(prefix ? { ':prefix': prefix } : {}) },
    ConsistentRead: consistent,
  });

/**
 * The site of a page or post known only by its id (translation and preview routes name no site):
 * the byId index gives its partition, whose key holds the site id.
 */
export async function siteOfRecord(kind: 'page' | 'post', id: string, label: string): Promise<string> {
  const wanted = kind === 'page' ? sk.page(id) : sk.post(id);
  for (const item of await keysById(id)) {
    const siteId = siteOfPartition(String(item.pk));
    if (siteId && item.sk === wanted) return siteId;
  }
  throw notFound(label);
}

/**
 * A site's posts, forms and media are deleted before the site itself, so a list with anything in it
 * proves the site exists: the site is read, for its 404, only when the page comes back empty.
 */
export async function listOfSite<T extends { items: unknown[]; totalCount: number }>(
  siteId: string,
  list: (id: string) => Promise<T>,
): Promise<T> {
  const page = await list(siteId);
  if (!page.items.length && !page.totalCount) await getSite(siteId);
  return page;
}
