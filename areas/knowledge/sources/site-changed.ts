import { enqueue } from '#shared/queue/messages.ts';
import { SITE_CHANGED } from '../messages.ts';

/**
 * The content area's SITE_CONTENT_CHANGED, wired by the content functions: one message to the
 * indexing worker, which syncs the sources reading the site (sources/site-sync.ts), so the content
 * function carries none of the knowledge area's sync code.
 */
export const queueSiteSync = (e: { tenantId: string; siteId: string }) => enqueue(SITE_CHANGED, e);
