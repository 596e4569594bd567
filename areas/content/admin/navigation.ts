import type { Principal } from '#shared/auth/access-token.ts';
import { checkItem, commitChange, orConflict, putItem, updateItem } from '#shared/data/commit.ts';
import { type IssueDetail, validationError } from '#shared/http/errors.ts';
import { getSite, siteItems } from '#areas/content/lookup.ts';
import { isPageItem, menuItem, type NavItem, siteKey, toMenu } from '#areas/content/records.ts';
import { NAV_LOCATIONS, NAV_MAX_DEPTH } from '#areas/content/vocabulary.ts';

interface NavInput {
  label: string;
  pageId?: string | null;
  url?: string | null;
  children?: NavInput[];
}

export async function menus(siteId: string) {
  const site = await getSite(siteId);
  const stored = new Map((await siteItems(site.id, 'NAV#')).map((i) => [String(i.location), toMenu(i)]));
  return NAV_LOCATIONS.map((location) => stored.get(location) ?? { location, items: [], updatedAt: null });
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
    const pageId = item.pageId ?? null;
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
  const pages = new Set((await siteItems(site.id, 'PAGE#')).filter(isPageItem).map((p) => String(p.id)));
  const issues: IssueDetail[] = [];
  const tree = normalize(items, pages, issues);
  if (issues.length) throw validationError(issues);
  const now = new Date().toISOString();
  await commitChange(
    [
      putItem(menuItem(site.id, location, tree, now)),
      orConflict(checkItem(siteKey(site.id), 'attribute_exists(pk)'), 'The site was deleted meanwhile'),
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'Navigation',
      entityId: site.id,
      action: 'update',
      changes: { location, items: tree.length },
    },
    { now },
  );
  return { location, items: tree, updatedAt: now };
}

/** Bumps the site's cache version: every public ETag of the site changes, so the next read is fresh. */
export async function invalidateCache(siteId: string, actor: Principal) {
  const site = await getSite(siteId);
  await commitChange(
    [
      orConflict(
        updateItem(siteKey(site.id), {}, { add: { cacheVersion: 1 }, condition: 'attribute_exists(pk)' }),
        'The site was deleted meanwhile',
      ),
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
