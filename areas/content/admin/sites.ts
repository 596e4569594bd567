import type { Principal } from '#shared/auth/access-token.ts';
import { deleteAll } from '#shared/data/batch.ts';
import { bumpCounter, claimUnique, listNewestFirst } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { badRequest, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { deletePrefix, sitePrefix } from '#areas/content/objects.ts';
import {
  claims,
  commit,
  del,
  getSite,
  put,
  read,
  siteItems,
  siteKey,
  SITES,
  toSite,
  type Item,
  type SiteRecord,
} from '#areas/content/store.ts';
import { config } from '#shared/platform/config.ts';

export type SiteInput = Omit<SiteRecord, 'id' | 'cacheVersion' | 'createdAt' | 'updatedAt'>;

export const siteView = ({ cacheVersion: _v, ...site }: SiteRecord) => site;
const siteItem = (r: SiteRecord) => ({ ...siteKey(r.id), ...keys.newestFirst(SITES, r.createdAt, r.id), ...r });
const domainLower = (d: string) => d.toLowerCase();

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

async function assertTenant(tenantId: string) {
  if (!(await read(keys.platformItem('TENANT', tenantId))))
    throw validationError([{ path: 'body.tenantId', message: 'No such tenant' }]);
}

const DOMAIN_TAKEN = 'This domain is already used by a site';
const MASTER_TAKEN = 'This tenant already has a master site';

export async function createSite(input: SiteInput, actor: Principal) {
  const tenantId = input.tenantId.toLowerCase();
  await assertTenant(tenantId);
  const now = new Date().toISOString();
  const record: SiteRecord = {
    ...input,
    tenantId,
    domain: domainLower(input.domain),
    id: crypto.randomUUID(),
    cacheVersion: 0,
    createdAt: now,
    updatedAt: now,
  };
  const owner = { siteId: record.id };
  await commit(
    [
      put(siteItem(record), 'attribute_not_exists(pk)'),
      bumpCounter(SITES, 1),
      claimUnique(claims.domain(record.domain), owner),
      record.isMaster ? claimUnique(claims.master(tenantId), owner) : null,
      {
        ConditionCheck: {
          TableName: config.tableName,
          Key: keys.platformItem('TENANT', tenantId),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
    ],
    {
      actor,
      tenantId,
      entityType: 'Site',
      entityId: record.id,
      action: 'create',
      changes: { domain: record.domain, isMaster: record.isMaster, isActive: record.isActive },
    },
    { 2: DOMAIN_TAKEN, 3: MASTER_TAKEN, 4: 'The tenant was deleted meanwhile' },
    now,
  );
  return siteView(record);
}

export async function updateSite(id: string, input: SiteInput, actor: Principal) {
  const was = await getSite(id);
  if (input.tenantId.toLowerCase() !== was.tenantId)
    throw badRequest('VALIDATION_ERROR', 'The tenant of a site cannot change');
  const now = new Date().toISOString();
  const next: SiteRecord = {
    ...was,
    ...input,
    tenantId: was.tenantId,
    domain: domainLower(input.domain),
    updatedAt: now,
  };
  const owner = { siteId: id };
  const domainMoved = next.domain !== was.domain;
  const masterMoved = next.isMaster !== was.isMaster;
  await commit(
    [
      put(siteItem(next), 'updatedAt = :was', { ':was': was.updatedAt }),
      domainMoved ? claimUnique(claims.domain(next.domain), owner) : null,
      domainMoved ? del(claims.domain(was.domain)) : null,
      masterMoved && next.isMaster ? claimUnique(claims.master(was.tenantId), owner) : null,
      masterMoved && !next.isMaster ? del(claims.master(was.tenantId)) : null,
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
    { 1: DOMAIN_TAKEN, 3: MASTER_TAKEN },
    now,
  );
  return siteView(next);
}

/** Every item of a site's per-site gsi1 list (forms, media, posts), with their counters. */
const listed = (siteId: string, kind: 'POSTS' | 'FORMS' | 'MEDIA') =>
  queryItems({
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.siteList(siteId, kind) },
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
  await deletePrefix(sitePrefix(site.id));
  const slugClaims = content.flatMap((i) => {
    const skey = String(i.sk);
    if (/^PAGE#[^#]+$/.test(skey))
      return [claims.pageSlug(site.id, (i.parentId as string | null) ?? null, i.slug as string)];
    if (/^POST#[^#]+$/.test(skey)) return [claims.postSlug(site.id, i.slug as string)];
    return [];
  });
  const counters = (['POSTS', 'FORMS', 'MEDIA'] as const).map((k) => keys.counter(keys.siteList(site.id, k)));
  await deleteAll(
    [...content, ...forms, ...media]
      .map((i) => ({ pk: i.pk as string, sk: i.sk as string }))
      .concat(slugClaims, counters),
  );
  await commit(
    [
      del(siteKey(site.id), 'attribute_exists(pk)'),
      bumpCounter(SITES, -1),
      del(claims.domain(site.domain)),
      site.isMaster ? del(claims.master(site.tenantId)) : null,
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'Site',
      entityId: site.id,
      action: 'delete',
      changes: { domain: site.domain, records: content.length, forms: forms.length, media: media.length },
    },
    { 0: 'The site was deleted meanwhile' },
  );
}
