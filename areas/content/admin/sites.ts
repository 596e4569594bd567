import { asRead } from '#shared/data/as-read.ts';
import { tenantExists, tenantStillExists } from '#areas/identity/for-content.ts';
import type { Principal } from '#shared/auth/access-token.ts';
import { deleteAll } from '#shared/data/batch.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, deleteItem, orConflict, putItem, putNew } from '#shared/data/commit.ts';
import { keyOf, keys, type Item } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { getSite, siteItems } from '#areas/content/lookup.ts';
import { deletePrefix, sitePrefix, uploadPrefix } from '#areas/content/objects.ts';
import {
  claims,
  isPageItem,
  isPostItem,
  SITES,
  type SiteRecord,
  siteItem,
  siteKey,
  siteList,
  siteView,
  toSite,
} from '#areas/content/records.ts';

export type SiteInput = Omit<SiteRecord, 'id' | 'cacheVersion' | 'createdAt' | 'updatedAt'>;

const DOMAIN_TAKEN = 'This domain is already used by a site';
const MASTER_TAKEN = 'This tenant already has a master site';

export async function listSites(q: { page: number; pageSize: number }) {
  const { items, totalCount } = await listNewestFirst<Item>(SITES, q);
  return toPage(
    items.map((i) => siteView(toSite(i))),
    totalCount,
    q.page,
    q.pageSize,
  );
}

export const getSiteView = async (id: string) => siteView(await getSite(id));

export async function createSite(input: SiteInput, actor: Principal) {
  if (!(await tenantExists(input.tenantId, true)))
    throw validationError([{ path: 'body.tenantId', message: 'No such tenant' }]);
  const now = new Date().toISOString();
  const record: SiteRecord = { ...input, id: crypto.randomUUID(), cacheVersion: 0, createdAt: now, updatedAt: now };
  const owner = { siteId: record.id };
  await commitChange(
    [
      putNew(siteItem(record)),
      bumpCounter(SITES, 1),
      orConflict(putNew({ ...claims.domain(record.domain), ...owner }), DOMAIN_TAKEN),
      record.isMaster && orConflict(putNew({ ...claims.master(record.tenantId), ...owner }), MASTER_TAKEN),
      orConflict(tenantStillExists(record.tenantId), 'The tenant was deleted meanwhile'),
    ],
    {
      actor,
      tenantId: record.tenantId,
      entityType: 'Site',
      entityId: record.id,
      action: 'create',
      changes: { domain: record.domain, isMaster: record.isMaster, isActive: record.isActive },
    },
    { now },
  );
  return siteView(record);
}

export async function updateSite(id: string, input: SiteInput, actor: Principal) {
  const was = await getSite(id);
  if (input.tenantId !== was.tenantId) throw validationError(undefined, 'The tenant of a site cannot change');
  const now = new Date().toISOString();
  const next: SiteRecord = { ...was, ...input, tenantId: was.tenantId, updatedAt: now };
  const owner = { siteId: id };
  const domainMoved = next.domain !== was.domain;
  const masterMoved = next.isMaster !== was.isMaster;
  await commitChange(
    [
      putItem(siteItem(next), asRead(was, 'updatedAt')),
      domainMoved && orConflict(putNew({ ...claims.domain(next.domain), ...owner }), DOMAIN_TAKEN),
      domainMoved && deleteItem(claims.domain(was.domain)),
      masterMoved && next.isMaster && orConflict(putNew({ ...claims.master(was.tenantId), ...owner }), MASTER_TAKEN),
      masterMoved && !next.isMaster && deleteItem(claims.master(was.tenantId)),
    ],
    {
      actor,
      tenantId: was.tenantId,
      entityType: 'Site',
      entityId: id,
      action: 'update',
      changes: {
        domain: next.domain,
        isMaster: next.isMaster,
        isActive: next.isActive,
        defaultLocale: next.defaultLocale,
      },
    },
    { now },
  );
  return siteView(next);
}

/** Every item of a site's per-site gsi1 list (forms, media, posts). */
const listed = (siteId: string, kind: 'POSTS' | 'FORMS' | 'MEDIA') =>
  queryItems<Item>({
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': siteList(siteId, kind) },
  });

/**
 * Deletes the site's S3 objects, its records and their unique claims first, then the site in one
 * transaction with its claims and audit entry: an interrupted delete leaves the site in place and
 * a retry removes the rest.
 */
export async function deleteSite(id: string, actor: Principal) {
  const site = await getSite(id);
  const [content, forms, media] = await Promise.all([
    siteItems(site.id, ''),
    listed(site.id, 'FORMS'),
    listed(site.id, 'MEDIA'),
  ]);
  await Promise.all([deletePrefix(sitePrefix(site.id)), deletePrefix(uploadPrefix(site.id))]);
  const slugClaims = content.flatMap((i) => {
    if (isPageItem(i)) return [claims.pageSlug(site.id, (i.parentId as string | null) ?? null, i.slug as string)];
    if (isPostItem(i)) return [claims.postSlug(site.id, i.slug as string)];
    return [];
  });
  const counters = (['POSTS', 'FORMS', 'MEDIA'] as const).map((k) => keys.counter(siteList(site.id, k)));
  await deleteAll([...content, ...forms, ...media].map(keyOf).concat(slugClaims, counters));
  await commitChange(
    [
      orConflict(deleteItem(siteKey(site.id), 'attribute_exists(pk)'), 'The site was deleted meanwhile'),
      bumpCounter(SITES, -1),
      deleteItem(claims.domain(site.domain)),
      site.isMaster && deleteItem(claims.master(site.tenantId)),
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'Site',
      entityId: site.id,
      action: 'delete',
      changes: { domain: site.domain, records: content.length, forms: forms.length, media: media.length },
    },
  );
}
