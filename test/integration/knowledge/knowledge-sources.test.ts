import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pageList, sourceKey, sourceList } from '#areas/knowledge/sources/source-records.ts';
import { queryItems } from '#shared/data/query.ts';
import { runDueSources } from '#areas/knowledge/sources/schedule.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { queueSender } from '#shared/platform/ports.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { KB, newBase, retrieveAs, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { articlePage, startLoopbackSite } from '#test/support/loopback-site.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * Web sources against a site the test serves on loopback: the routes' rules, then what a sync reads
 * and what it leaves alone (robots.txt, redirects, 304, an unchanged text, a vanished page, a redirect
 * to a private address), each proven by the site's own request log and the base's documents.
 */
vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');
vi.stubEnv('KNOWLEDGE_SOURCE_PACE_MS', '0');
useKnowledgeStandIns();

let tenantId: string;
let owner: string;
let member: string;
let otherOwner: string;
let site: Awaited<ReturnType<typeof startLoopbackSite>>;
beforeAll(async () => {
  tenantId = await newTenant({ maxKnowledgeBases: 10, planType: 1 });
  owner = await tokenFor({ tenantId });
  member = await tokenFor({ tenantId, role: 'TenantMember' });
  otherOwner = await tokenFor({ tenantId: await newTenant({ maxKnowledgeBases: 10 }) });
  site = await startLoopbackSite();
});
afterAll(() => site.close());

const sources = (kbId: string) => `${KB}/${kbId}/sources`;
const create = (kbId: string, body: Record<string, unknown>, token = owner) =>
  invoke('POST', sources(kbId), { token, body });

async function webSource(kbId: string, settings: Record<string, unknown>) {
  const res = await create(kbId, { type: 'web', name: 'Help centre', settings });
  expect(res).toAnswer(201);
  return res.json.result.id as string;
}

async function sync(kbId: string, sourceId: string) {
  const res = await invoke('POST', `${sources(kbId)}/${sourceId}/sync`, { token: owner });
  expect(res).toAnswer(202);
  const got = await invoke('GET', `${sources(kbId)}/${sourceId}`, { token: owner });
  expect(got).toAnswer(200);
  return got.json.result;
}

async function documents(kbId: string) {
  const res = await invoke('GET', `${KB}/${kbId}/documents`, { token: owner, query: { pageSize: 100 } });
  expect(res).toAnswer(200);
  return res.json.result.items as { id: string; title: string; status: string; sourceUrl: string | null }[];
}

describe('source routes', () => {
  it('creates, lists, gets, updates and deletes a source; validates its settings by type', async () => {
    const kbId = (await newBase(owner)).id;
    const res = await create(kbId, {
      type: 'web',
      name: 'Docs',
      settings: { startUrls: [`${site.origin}/none`], include: '/docs/*' },
      syncEvery: 'daily',
    });
    expect(res).toAnswer(201);
    expect(res.json.result).toMatchObject({
      type: 'web',
      name: 'Docs',
      syncEvery: 'daily',
      syncStatus: 'Idle',
      settings: {
        startUrls: [`${site.origin}/none`],
        include: '/docs/*',
        maxDepth: 2,
        sameHostOnly: true,
        maxPages: 100,
      },
      progress: { pagesSeen: 0, changed: 0, unchanged: 0, removed: 0, failed: 0, failures: [] },
      pageCount: 0,
    });
    const id = res.json.result.id;

    const list = await invoke('GET', sources(kbId), { token: member });
    expect(list).toAnswer(200);
    expect(list.json.result).toMatchObject({ totalCount: 1, items: [{ id }] });
    expect(await invoke('GET', `${sources(kbId)}/${id}`, { token: member })).toAnswer(200);

    const put = await invoke('PUT', `${sources(kbId)}/${id}`, {
      token: owner,
      body: { name: 'Docs 2', syncEvery: 'off', settings: { maxDepth: 1 } },
    });
    expect(put).toAnswer(200);
    expect(put.json.result).toMatchObject({
      name: 'Docs 2',
      syncEvery: 'off',
      nextSyncAt: null,
      settings: { maxDepth: 1, include: '/docs/*' },
    });

    expect(await invoke('DELETE', `${sources(kbId)}/${id}`, { token: owner })).toAnswer(204);
    expect(await invoke('GET', `${sources(kbId)}/${id}`, { token: owner })).toAnswer(404);
  });

  it('refuses settings a type needs, URLs that are not https or name a private address, and pages past the plan', async () => {
    const kbId = (await newBase(owner)).id;
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'web', name: 'x', settings: {} }, 'body.settings.startUrls'],
      [{ type: 'sitemap', name: 'x', settings: {} }, 'body.settings.sitemapUrl'],
      [{ type: 'web', name: 'x', settings: { startUrls: ['ftp://example.com/'] } }, 'body.settings.startUrls.0'],
      [{ type: 'web', name: 'x', settings: { startUrls: ['http://10.0.0.1/'] } }, 'body.settings.startUrls.0'],
      [
        { type: 'sitemap', name: 'x', settings: { sitemapUrl: 'http://169.254.169.254/latest' } },
        'body.settings.sitemapUrl',
      ],
      [{ type: 'web', name: 'x', settings: { startUrls: ['https://u:p@example.com/'] } }, 'body.settings.startUrls.0'],
      [
        { type: 'web', name: 'x', settings: { startUrls: [`${site.origin}/`], maxPages: 101 } },
        'body.settings.maxPages',
      ],
      [{ type: 'rss', name: 'x', settings: {} }, 'body.type'],
    ];
    for (const [body, path] of cases) {
      const res = await create(kbId, body);
      expect(res).toAnswer(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
      expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });

  it('is write-protected from a member (403), hidden from another tenant (404), and bounded by the plan (409)', async () => {
    const kbId = (await newBase(owner)).id;
    const body = { type: 'web', name: 'x', settings: { startUrls: [`${site.origin}/`] } };
    expect(await create(kbId, body, member)).toAnswer(403);
    expect(await create(kbId, body, otherOwner)).toAnswer(404);
    expect(await invoke('GET', sources(kbId), { token: otherOwner })).toAnswer(404);
    expect(await create(kbId, body)).toAnswer(201);
    const second = await create(kbId, body);
    expect(second).toAnswer(201);
    expect(await invoke('GET', `${sources(kbId)}/${second.json.result.id}`, { token: otherOwner })).toAnswer(404);
    expect(await invoke('POST', `${sources(kbId)}/${second.json.result.id}/sync`, { token: member })).toAnswer(403);
    // Starter: two sources per base.
    const third = await create(kbId, body);
    expect(third).toAnswer(409);
    expect(third.json.error).toMatchObject({ code: 'PLAN_LIMIT_REACHED' });
    expect(third.json.error.message).toMatch(/2 sources per knowledge base/);
  });

  it('answers 409 to a second sync while one runs, and ends a sync stuck past its deadline Failed', async () => {
    const kbId = (await newBase(owner)).id;
    const id = await webSource(kbId, { startUrls: [`${site.origin}/none`] });
    const deliver = await queueSender();
    queueSender.install({ send: async () => undefined });
    try {
      expect(await invoke('POST', `${sources(kbId)}/${id}/sync`, { token: owner })).toAnswer(202);
      const again = await invoke('POST', `${sources(kbId)}/${id}/sync`, { token: owner });
      expect(again).toAnswer(409);
      expect(again.json.error).toMatchObject({ code: 'CONFLICT' });
      const busy = await invoke('PUT', `${sources(kbId)}/${id}`, { token: owner, body: { settings: { maxDepth: 0 } } });
      expect(busy).toAnswer(409);
    } finally {
      queueSender.install(deliver);
    }
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: sourceKey(tenantId, kbId, id),
        UpdateExpression: 'SET syncDeadline = :d',
        ExpressionAttributeValues: { ':d': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    const got = await invoke('GET', `${sources(kbId)}/${id}`, { token: owner });
    expect(got).toAnswer(200);
    expect(got.json.result).toMatchObject({ syncStatus: 'Failed' });
    expect(got.json.result.syncError).toMatch(/did not finish in time/);
    expect(await invoke('POST', `${sources(kbId)}/${id}/sync`, { token: owner })).toAnswer(202);
  });
});

describe('a web sync', () => {
  it('reads what robots.txt allows, follows links and redirects, keeps the article, and cites the page', async () => {
    site.pages.set('/robots.txt', { type: 'text/plain', body: 'User-agent: *\nDisallow: /private/\n' });
    site.pages.set('/docs/', {
      body: articlePage('Help centre', 'Welcome to the help centre of the zqharbour company.', [
        '/docs/returns',
        '/docs/moved',
        '/private/secret',
        '/docs/evil',
        '/docs/image.png',
        'https://elsewhere.example/docs/x',
      ]),
    });
    site.pages.set('/docs/returns', {
      body: articlePage('Returns', 'Orders zqreturns can be sent back within 30 days.'),
      etag: '"r1"',
    });
    site.pages.set('/docs/moved', { status: 301, location: '/docs/shipping' });
    site.pages.set('/docs/shipping', { body: articlePage('Shipping', 'Parcels zqshipping leave within two days.') });
    site.pages.set('/private/secret', { body: articlePage('Secret', 'zqsecret must never be read.') });
    // A redirect to a private address is refused before any connection (0.0.0.0:1 stays on this machine).
    site.pages.set('/docs/evil', { status: 302, location: 'http://0.0.0.0:1/' });
    site.pages.set('/docs/image.png', { type: 'image/png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) });

    const kbId = (await newBase(owner)).id;
    const id = await webSource(kbId, { startUrls: [`${site.origin}/docs/`] });
    site.clear();
    const first = await sync(kbId, id);
    expect(first).toMatchObject({ syncStatus: 'Completed', syncError: null, pageCount: 3 });
    expect(first.progress).toMatchObject({ pagesSeen: 6, changed: 3, unchanged: 0, removed: 0, failed: 3 });
    const reasons = Object.fromEntries(
      first.progress.failures.map((f: { url: string; reason: string }) => [new URL(f.url).pathname, f.reason]),
    );
    expect(reasons['/private/secret']).toMatch(/robots\.txt does not allow/);
    expect(reasons['/docs/evil']).toMatch(/A redirect was refused/);
    expect(reasons['/docs/image.png']).toMatch(/image\/png is not read/);

    expect(site.asked()).not.toContain('/private/secret');
    expect(site.asked().filter((p) => p === '/robots.txt')).toHaveLength(1);
    expect(site.log.every((l) => /SaaSPlatformKnowledgeBot/.test(String(l.headers['user-agent'])))).toBe(true);

    const docs = await documents(kbId);
    expect(docs.map((d) => d.status)).toEqual(['Indexed', 'Indexed', 'Indexed']);
    expect(docs.map((d) => d.sourceUrl).sort()).toEqual(
      ['/docs/', '/docs/moved', '/docs/returns'].map((p) => `${site.origin}${p}`),
    );
    const hit = (await retrieveAs(owner, kbId, { query: 'zqshipping', mode: 'keyword' }))[0];
    expect(hit).toMatchObject({ documentTitle: 'Shipping', sourceUrl: `${site.origin}/docs/moved` });
    // The chrome around the article is not indexed.
    expect(await retrieveAs(owner, kbId, { query: 'zqcookiebanner', mode: 'keyword' })).toEqual([]);
    expect(await retrieveAs(owner, kbId, { query: 'zqfooterchrome', mode: 'keyword' })).toEqual([]);
  });
});

describe('scheduled syncs', () => {
  it('starts a source whose syncEvery came round, books the next, and ends a stuck sync by its deadline', async () => {
    site.pages.set('/sched/', { body: articlePage('Scheduled', 'The zqscheduled page.') });
    const kbId = (await newBase(owner)).id;
    const res = await create(kbId, {
      type: 'web',
      name: 'Hourly',
      settings: { startUrls: [`${site.origin}/sched/`] },
      syncEvery: 'hourly',
    });
    expect(res).toAnswer(201);
    const id = res.json.result.id;
    const created = Date.parse(res.json.result.nextSyncAt);
    expect(created).toBeLessThanOrEqual(Date.now());

    expect(await runDueSources(Date.now() + 1000)).toBeGreaterThanOrEqual(1);
    const ran = (await invoke('GET', `${sources(kbId)}/${id}`, { token: owner })).json.result;
    expect(ran).toMatchObject({ syncStatus: 'Completed', pageCount: 1, progress: { changed: 1 } });
    expect(Date.parse(ran.nextSyncAt) - Date.parse(ran.lastSyncAt)).toBe(3_600_000);
    // Not due again within the hour.
    site.clear();
    await runDueSources(Date.now() + 60_000);
    expect(site.asked()).toEqual([]);
    expect((await invoke('GET', `${sources(kbId)}/${id}`, { token: owner })).json.result.lastSyncAt).toBe(
      ran.lastSyncAt,
    );

    // A sync whose worker never ran is ended by the scheduler once past its deadline.
    const deliver = await queueSender();
    queueSender.install({ send: async () => undefined });
    try {
      expect(await invoke('POST', `${sources(kbId)}/${id}/sync`, { token: owner })).toAnswer(202);
    } finally {
      queueSender.install(deliver);
    }
    await runDueSources(Date.now() + 46 * 60_000);
    const stuck = (await invoke('GET', `${sources(kbId)}/${id}`, { token: owner })).json.result;
    expect(stuck.syncStatus).toBe('Failed');
    expect(stuck.syncError).toMatch(/did not finish in time/);
  });
});

describe('a deleted base', () => {
  it('takes its sources, their pages and schedules with it', async () => {
    site.pages.set('/gone/', { body: articlePage('Gone', 'The zqgonebase page.') });
    const kbId = (await newBase(owner)).id;
    const res = await create(kbId, {
      type: 'web',
      name: 'Daily',
      settings: { startUrls: [`${site.origin}/gone/`] },
      syncEvery: 'daily',
    });
    expect(res).toAnswer(201);
    await sync(kbId, res.json.result.id);
    const items = (pk: string) =>
      queryItems({
        TableName: config.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
      });
    expect(await items(pageList(tenantId, kbId))).toHaveLength(1);
    expect(await invoke('DELETE', `${KB}/${kbId}`, { token: owner })).toAnswer(204);
    expect(await items(sourceList(tenantId, kbId))).toEqual([]);
    expect(await items(pageList(tenantId, kbId))).toEqual([]);
  });
});
