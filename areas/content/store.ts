import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { commitChange, type Change } from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { keysById, queryItems } from '#shared/data/query.ts';
import type { TransactItem } from '#shared/data/transact.ts';
import { notFound } from '#shared/http/errors.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';

export type Item = Record<string, unknown>;
export type Key = { pk: string; sk: string };

export interface SiteRecord {
  id: string;
  tenantId: string;
  domain: string;
  isMaster: boolean;
  defaultLocale: string;
  themeConfig: Record<string, unknown>;
  metadata: Record<string, unknown>;
  isActive: boolean;
  /** Bumped by cache/invalidate; part of every public ETag of the site. */
  cacheVersion: number;
  createdAt: string;
  updatedAt: string;
}

/** Sort keys inside a site's partition. */
export const sk = {
  page: (id: string) => `PAGE#${id}`,
  pageTranslation: (id: string, locale: string) => `PAGE#${id}#TR#${locale}`,
  post: (id: string) => `POST#${id}`,
  postTranslation: (id: string, locale: string) => `POST#${id}#TR#${locale}`,
  nav: (location: string) => `NAV#${location}`,
};
export const siteKey = (id: string) => keys.platformItem('SITE', id);
export const SITES = keys.platformCollection('SITE');

/** Unique claims: a domain platform-wide, a master site per tenant, page slugs among siblings, post slugs per site. */
export const claims = {
  domain: (domain: string) => keys.unique('DOMAIN', domain),
  master: (tenantId: string) => keys.unique('MASTER_SITE', tenantId),
  pageSlug: (siteId: string, parentId: string | null, slug: string) =>
    keys.unique('PAGE_SLUG', `${siteId}#${parentId ?? 'ROOT'}#${slug}`),
  postSlug: (siteId: string, slug: string) => keys.unique('POST_SLUG', `${siteId}#${slug}`),
};

export async function read(key: Key, consistent = true): Promise<Item | undefined> {
  return (await ddb().send(new GetCommand({ TableName: config.tableName, Key: key, ConsistentRead: consistent }))).Item;
}

export async function readOr404(key: Key, what: string, consistent = true): Promise<Item> {
  const item = await read(key, consistent);
  if (!item) throw notFound(what);
  return item;
}

export const toSite = (i: Item): SiteRecord => ({
  id: i.id as string,
  tenantId: i.tenantId as string,
  domain: i.domain as string,
  isMaster: i.isMaster === true,
  defaultLocale: i.defaultLocale as string,
  themeConfig: (i.themeConfig as Record<string, unknown>) ?? {},
  metadata: (i.metadata as Record<string, unknown>) ?? {},
  isActive: i.isActive !== false,
  cacheVersion: Number(i.cacheVersion ?? 0),
  createdAt: i.createdAt as string,
  updatedAt: (i.updatedAt as string) ?? (i.createdAt as string),
});

export const getSite = async (id: string, consistent = true) =>
  toSite(await readOr404(siteKey(id.toLowerCase()), 'Site', consistent));

/** Items of a site's partition whose sort key starts with `prefix` (all of them for ''). */
export const siteItems = (siteId: string, prefix: string, consistent = true) =>
  queryItems({
    TableName: config.tableName,
    KeyConditionExpression: prefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.siteContent(siteId), ...(prefix ? { ':prefix': prefix } : {}) },
    ConsistentRead: consistent,
  });

/**
 * The site of a page or post known only by its id (translation and preview routes name no site):
 * the byId index gives its partition, whose key holds the site id.
 */
export async function siteOfRecord(kind: 'PAGE' | 'POST', id: string, label: string): Promise<string> {
  const prefix = keys.siteContent('');
  for (const item of await keysById(id.toLowerCase())) {
    const pk = String(item.pk);
    if (pk.startsWith(prefix) && item.sk === `${kind}#${id.toLowerCase()}`) return pk.slice(prefix.length);
  }
  throw notFound(label);
}

/** One transaction of the change's items plus its audit entry; `conflicts[i]` names why item i failed (409). */
export const commit = (
  items: (TransactItem | null)[],
  change: Change,
  conflicts: Record<number, string> = {},
  now = new Date().toISOString(),
) => commitChange(items, change, now, conflicts);

export const put = (item: Item, condition?: string, values?: Item): TransactItem => ({
  Put: {
    TableName: config.tableName,
    Item: item,
    ...(condition ? { ConditionExpression: condition } : {}),
    ...(values ? { ExpressionAttributeValues: values } : {}),
  },
});
export const del = (key: Key, condition?: string): TransactItem => ({
  Delete: { TableName: config.tableName, Key: key, ...(condition ? { ConditionExpression: condition } : {}) },
});
/** A write conditioned on the site still existing (a concurrent delete must not leave orphans). */
export const exists = (key: Key): TransactItem => ({
  ConditionCheck: { TableName: config.tableName, Key: key, ConditionExpression: 'attribute_exists(pk)' },
});
export const siteExists = (siteId: string) => exists(siteKey(siteId));

export const nullable = <T>(v: T | null | undefined): T | null => (v === undefined || v === '' ? null : v);
