import * as z from 'zod/mini';
import { conflict } from '#shared/http/errors.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { pageOf, paging, text, uuid } from '#shared/routes/schemas.ts';
import { sourceLimitReached } from '../errors.ts';
import {
  MAX_DEPTH,
  MAX_START_URLS,
  SOURCE_LIMITS,
  SOURCE_TYPES,
  SYNC_EVERY,
  SYNC_STATUSES,
} from './source-vocabulary.ts';

/** A base's sources: the web, a sitemap or one of the tenant's content sites, synced into its documents. */
const read = { kind: 'bearer', permission: 'knowledge:read' } as const;
const write = { kind: 'bearer', permission: 'knowledge:write' } as const;
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));
const ofBase = scope.tenant({
  tenantFrom: 'query',
  record: { param: 'kbId', collection: 'KB', label: 'Knowledge base' },
});
const MOST_PAGES = Math.max(...Object.values(SOURCE_LIMITS).map((l) => l.pagesPerSource));

const pageUrl = () => z.string().check(z.trim(), z.minLength(1), z.maxLength(2000));
const pathPattern = () => z.optional(z.nullable(z.string().check(z.maxLength(500))));

export const sourceSettings = once(() =>
  z.object({
    startUrls: z.optional(z.array(pageUrl()).check(z.minLength(1), z.maxLength(MAX_START_URLS))),
    include: pathPattern(),
    exclude: pathPattern(),
    maxDepth: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(MAX_DEPTH))),
    sameHostOnly: z.optional(z.boolean()),
    sitemapUrl: z.optional(pageUrl()),
    siteId: z.optional(uuid()),
    maxPages: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(MOST_PAGES))),
  }),
);

const knowledgeSource = once(() =>
  z.object({
    id: z.string(),
    kbId: z.string(),
    type: z.enum(SOURCE_TYPES),
    name: z.string(),
    settings: z.object({
      startUrls: z.optional(z.array(z.string())),
      include: z.optional(z.nullable(z.string())),
      exclude: z.optional(z.nullable(z.string())),
      maxDepth: z.optional(z.number()),
      sameHostOnly: z.optional(z.boolean()),
      sitemapUrl: z.optional(z.string()),
      siteId: z.optional(z.string()),
      maxPages: z.optional(z.number()),
    }),
    syncEvery: z.enum(SYNC_EVERY),
    syncStatus: z.enum(SYNC_STATUSES),
    syncStartedAt: z.nullable(z.string()),
    lastSyncAt: z.nullable(z.string()),
    syncError: z.nullable(z.string()),
    progress: z.object({
      pagesSeen: z.number(),
      changed: z.number(),
      unchanged: z.number(),
      removed: z.number(),
      failed: z.number(),
      failures: z.array(z.object({ url: z.string(), reason: z.string() })),
    }),
    nextSyncAt: z.nullable(z.string()),
    pageCount: z.number(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);

const baseParams = once(() => z.object({ kbId: uuid() }));
const sourceParams = once(() => z.object({ kbId: uuid(), sourceId: uuid() }));
const P = '/api/knowledge/bases/{kbId}/sources';
const common = { group: 'knowledge', auth: write, scope: ofBase } as const;
const syncRunning = conflict;

export const sourceRoutes = defineRoutes([
  {
    ...common,
    id: 'knowledge.sources.create',
    method: 'POST',
    path: P,
    summary:
      'Add a source to a base: web (startUrls, include/exclude path globs, maxDepth, same host by default), ' +
      'sitemap (sitemapUrl, a sitemap or index, gzip too) or site (siteId, a content site of the tenant); ' +
      'syncEvery off, hourly, daily or weekly. Sources per base and pages per source by plan ' +
      '(Starter 2 and 100, Professional 10 and 1,000, Enterprise 50 and 5,000; 409 PLAN_LIMIT_REACHED). ' +
      'Nothing is read until a sync runs',
    status: 201,
    errors: [sourceLimitReached],
    schemas: () => ({
      params: baseParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        type: z.enum(SOURCE_TYPES),
        name: text(200),
        settings: sourceSettings(),
        syncEvery: z.optional(z.enum(SYNC_EVERY)),
      }),
      response: knowledgeSource(),
    }),
  },
  {
    ...common,
    auth: read,
    id: 'knowledge.sources.list',
    method: 'GET',
    path: P,
    summary: "A base's sources, newest first, each with its sync's status and progress",
    status: 200,
    schemas: () => ({
      params: baseParams(),
      query: z.object({ ...tenantQuery(), ...paging() }),
      response: pageOf(knowledgeSource()),
    }),
  },
  {
    ...common,
    auth: read,
    id: 'knowledge.sources.get',
    method: 'GET',
    path: `${P}/{sourceId}`,
    summary:
      'A source with its sync: status, progress (pagesSeen, changed, unchanged, removed, failed with reasons), ' +
      'the reason it stopped, and its next scheduled sync',
    status: 200,
    schemas: () => ({ params: sourceParams(), query: z.object(tenantQuery()), response: knowledgeSource() }),
  },
  {
    ...common,
    id: 'knowledge.sources.update',
    method: 'PUT',
    path: `${P}/{sourceId}`,
    summary:
      'Rename a source, change its schedule, or replace its settings (absent fields stay; the type is fixed; ' +
      '409 while a sync runs). New settings apply from the next sync',
    status: 200,
    errors: [syncRunning],
    schemas: () => ({
      params: sourceParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        name: z.optional(text(200)),
        settings: z.optional(sourceSettings()),
        syncEvery: z.optional(z.enum(SYNC_EVERY)),
      }),
      response: knowledgeSource(),
    }),
  },
  {
    ...common,
    id: 'knowledge.sources.delete',
    method: 'DELETE',
    path: `${P}/{sourceId}`,
    summary:
      "Delete a source: its pages' documents leave retrieval and are removed by the worker; a sync running stops",
    status: 204,
    schemas: () => ({ params: sourceParams(), query: z.object(tenantQuery()) }),
  },
  {
    ...common,
    id: 'knowledge.sources.sync',
    method: 'POST',
    path: `${P}/{sourceId}/sync`,
    summary:
      'Start a sync now (202, syncStatus Running): only pages that changed are chunked and embedded again; ' +
      'pages gone (404, 410, out of the sitemap) leave after a second sync that misses them. 409 while a sync runs',
    status: 202,
    errors: [syncRunning],
    schemas: () => ({ params: sourceParams(), query: z.object(tenantQuery()), response: knowledgeSource() }),
  },
]);
