import * as z from 'zod/mini';
import { defineEvent } from '#shared/data/events.ts';
import { uuid } from '#shared/routes/schemas.ts';

/**
 * What the content area tells the areas above it (their entry points wire the subscribers): a
 * site's published content may have changed (a page or post created, edited, translated, published,
 * unpublished or deleted); the knowledge area syncs the bases that read that site.
 */
export const SITE_CONTENT_CHANGED = defineEvent('content.site-content-changed', () =>
  z.object({ tenantId: uuid(), siteId: uuid() }),
);
