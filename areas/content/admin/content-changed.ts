import { emit } from '#shared/data/events.ts';
import { SITE_CONTENT_CHANGED } from '../events.ts';
import type { SiteRecord } from '../records.ts';

/** Tells the areas above that the site's published content may have changed (after the change committed). */
export const contentChanged = (site: Pick<SiteRecord, 'id' | 'tenantId'>) =>
  site.tenantId ? emit(SITE_CONTENT_CHANGED, { tenantId: site.tenantId, siteId: site.id }) : Promise.resolve();
