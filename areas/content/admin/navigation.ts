import type { Principal } from '#shared/auth/access-token.ts';
import { keys } from '#shared/data/keys.ts';
import { validationError, type IssueDetail } from '#shared/http/errors.ts';
import { isPageItem } from '#areas/content/pages.ts';
import { commit, getSite, put, siteExists, siteItems, siteKey, sk } from '#areas/content/store.ts';
import { config } from '#shared/platform/config.ts';
import { NAV_LOCATIONS, NAV_MAX_DEPTH } from '#shared/routes/content.ts';

interface NavInput {
  label: string;
  pageId?: string | null;
  url?: string | null;
  children?: NavInput[];
}
interface NavItem {
  label: string;
  pageId: string | null;
  url: string | null;
  children: NavItem[];
}

export async function menus(siteId: string) {
  const site = await getSite(siteId);
  const stored = new Map((await siteItems(site.id, 'NAV#')).map((i) => [i.location as string, i]));
  return NAV_LOCATIONS.map((location) => ({
    location,
    items: (stored.get(location)?.items as NavItem[]) ?? [],
    updatedAt: (stored.get(location)?.updatedAt as string) ?? null,
  }));
}

/** Each item links to a page of the same site or to a URL (exactly one), at most three levels deep. */
function normalize(
  items: NavInput[],
  pages: Set<string>,
  issues: IssueDetail[],
  path = 'body.items',
  depth = 1,
): NavItem[] {
  if (depth > NAV_MAX_DEPTH && items.length)
    issues.push({ path, message: `Menus have at most ${NAV_MAX_DEPTH} levels` });
  return items.map((item, i) => {
    const at = `${path}.${i}`;
    const pageId = item.pageId?.toLowerCase() ?? null;
    const url = item.url || null;
    if (!pageId === !url) issues.push({ path: at, message: 'Give either pageId or url' });
    if (pageId && !pages.has(pageId)) issues.push({ path: `${at}.pageId`, message: 'No such page in this site' });
    return {
      label: item.label,
      pageId,
      url,
      children: normalize(item.children ?? [], pages, issues, `${at}.children`, depth + 1),
    };
  });
}

export async function putMenu(siteId: string, location: string, items: NavInput[], actor: Principal) {
  if (!(NAV_LOCATIONS as readonly string[]).includes(location))
    throw validationError([{ path: 'params.location', message: `One of ${NAV_LOCATIONS.join(', ')}` }]);
  const site = await getSite(siteId);
  const pages = new Set((await siteItems(site.id, 'PAGE#')).filter(isPageItem).map((p) => p.id as string));
  const issues: IssueDetail[] = [];
  const tree = normalize(items, pages, issues);
  if (issues.length) throw validationError(issues);
  const now = new Date().toISOString();
  await commit(
    [
      put({ pk: keys.siteContent(site.id), sk: sk.nav(location), location, items: tree, updatedAt: now }),
      siteExists(site.id),
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'Navigation',
      entityId: site.id,
      action: 'update',
      changes: { location, items: tree.length },
    },
    { 1: 'The site was deleted meanwhile' },
    now,
  );
  return { location, items: tree, updatedAt: now };
}

/** Bumps the site's cache version: every public ETag of the site changes, so the next read is fresh. */
export async function invalidateCache(siteId: string, actor: Principal) {
  const site = await getSite(siteId);
  await commit(
    [
      {
        Update: {
          TableName: config.tableName,
          Key: siteKey(site.id),
          UpdateExpression: 'ADD cacheVersion :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'Site',
      entityId: site.id,
      action: 'cache-invalidate',
      changes: { cacheVersion: site.cacheVersion + 1 },
    },
  );
  return { siteId: site.id, cacheVersion: site.cacheVersion + 1 };
}
