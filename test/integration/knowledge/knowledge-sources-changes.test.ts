import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { KB, newBase, retrieveAs, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { articlePage, gz, sitemapIndex, startLoopbackSite, urlset } from '#test/support/loopback-site.ts';
import { sentMessages } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * What a sync spends on a page that did not change (nothing: a 304, a sitemap lastmod no newer, or
 * the same text), what it does with one that did (a new version swapped in, the old one gone), and
 * how a page that went leaves (after the grace of one sync), on a site the test serves on loopback.
 */
vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');
vi.stubEnv('KNOWLEDGE_SOURCE_PACE_MS', '0');
useKnowledgeStandIns();

let owner: string;
let site: Awaited<ReturnType<typeof startLoopbackSite>>;
beforeAll(async () => {
  owner = await tokenFor({ tenantId: await newTenant({ maxKnowledgeBases: 10, planType: 2 }) });
  site = await startLoopbackSite();
});
afterAll(() => site.close());

const sources = (kbId: string) => `${KB}/${kbId}/sources`;

async function source(kbId: string, type: string, settings: Record<string, unknown>) {
  const res = await invoke('POST', sources(kbId), { token: owner, body: { type, name: 'Site', settings } });
  expect(res).toAnswer(201);
  return res.json.result.id as string;
}

async function sync(kbId: string, sourceId: string) {
  site.clear();
  expect(await invoke('POST', `${sources(kbId)}/${sourceId}/sync`, { token: owner })).toAnswer(202);
  const got = await invoke('GET', `${sources(kbId)}/${sourceId}`, { token: owner });
  expect(got).toAnswer(200);
  expect(got.json.result.syncStatus).toBe('Completed');
  return got.json.result;
}

/** The base's documents by the page they came from. */
async function byUrl(kbId: string) {
  const res = await invoke('GET', `${KB}/${kbId}/documents`, { token: owner, query: { pageSize: 100 } });
  expect(res).toAnswer(200);
  const docs = res.json.result.items as { id: string; status: string; sourceUrl: string; indexedAt: string }[];
  return Object.fromEntries(docs.map((d) => [new URL(d.sourceUrl).pathname, d]));
}

const texts = async (kbId: string, q: string) =>
  (await retrieveAs(owner, kbId, { query: q, mode: 'keyword' })).map((m) => new URL(m.sourceUrl ?? '').pathname);

describe('a web sync again', () => {
  it('re-embeds only the page whose text changed, swaps it in, and removes a vanished page at its second miss', async () => {
    const page = (title: string, text: string) => ({ body: articlePage(title, text), headers: {} });
    site.pages.set('/kb2/', { body: articlePage('Index', 'The zqindex page.', ['/kb2/a', '/kb2/b', '/kb2/c']) });
    site.pages.set('/kb2/a', { ...page('A', 'Answer zqalpha.'), etag: '"a1"' });
    site.pages.set('/kb2/b', page('B', 'Answer zqbravo.'));
    site.pages.set('/kb2/c', page('C', 'Answer zqoldtext.'));
    const kbId = (await newBase(owner)).id;
    const id = await source(kbId, 'web', { startUrls: [`${site.origin}/kb2/`] });

    const first = await sync(kbId, id);
    expect(first.progress).toMatchObject({ pagesSeen: 4, changed: 4, unchanged: 0, failed: 0 });
    const before = await byUrl(kbId);
    expect(Object.keys(before).sort()).toEqual(['/kb2/', '/kb2/a', '/kb2/b', '/kb2/c']);

    // b's chrome changes (not its article), c's article changes, a answers 304 to its ETag.
    site.pages.set('/kb2/b', { body: articlePage('B', 'Answer zqbravo.').replace('zqfooterchrome', 'zqnewfooter') });
    site.pages.set('/kb2/c', page('C', 'Answer zqnewtext.'));
    const second = await sync(kbId, id);
    expect(second.progress).toMatchObject({ pagesSeen: 4, changed: 1, unchanged: 3, removed: 0, failed: 0 });
    expect(site.log.find((l) => l.path === '/kb2/a')?.headers['if-none-match']).toBe('"a1"');
    const after = await byUrl(kbId);
    for (const p of ['/kb2/', '/kb2/a', '/kb2/b']) expect(after[p], p).toEqual(before[p]);
    expect(after['/kb2/c']!.id).not.toBe(before['/kb2/c']!.id);
    expect(after['/kb2/c']!.status).toBe('Indexed');
    expect(Object.keys(after)).toHaveLength(4);
    expect(await texts(kbId, 'zqnewtext')).toEqual(['/kb2/c']);
    expect(await texts(kbId, 'zqoldtext')).toEqual([]);

    // b vanishes: the first sync that misses it keeps it, the second removes it.
    site.pages.delete('/kb2/b');
    const third = await sync(kbId, id);
    expect(third.progress).toMatchObject({ changed: 0, removed: 0, failed: 1 });
    expect(third.progress.failures).toEqual([{ url: `${site.origin}/kb2/b`, reason: 'HTTP 404' }]);
    expect(await texts(kbId, 'zqbravo')).toEqual(['/kb2/b']);
    const fourth = await sync(kbId, id);
    expect(fourth).toMatchObject({ pageCount: 3, progress: { removed: 1 } });
    expect(await texts(kbId, 'zqbravo')).toEqual([]);
    expect(Object.keys(await byUrl(kbId)).sort()).toEqual(['/kb2/', '/kb2/a', '/kb2/c']);
  });

  it("removes a deleted source's pages from the base", async () => {
    site.pages.set('/kb3/', { body: articlePage('Only', 'The zqdeleted page.') });
    const kbId = (await newBase(owner)).id;
    const id = await source(kbId, 'web', { startUrls: [`${site.origin}/kb3/`] });
    await sync(kbId, id);
    expect(await texts(kbId, 'zqdeleted')).toEqual(['/kb3/']);
    expect(await invoke('DELETE', `${sources(kbId)}/${id}`, { token: owner })).toAnswer(204);
    expect(await texts(kbId, 'zqdeleted')).toEqual([]);
    expect(await byUrl(kbId)).toEqual({});
  });
});

describe('the page limit', () => {
  it('reads at most maxPages, queues no more, and counts no page it did not reach as gone', async () => {
    site.pages.set('/lim/', { body: articlePage('Limit', 'The zqlimit page.', ['/lim/1', '/lim/2', '/lim/3']) });
    for (const n of [1, 2, 3]) site.pages.set(`/lim/${n}`, { body: articlePage(`L${n}`, `Limit zqlim${n}.`) });
    const kbId = (await newBase(owner)).id;
    const id = await source(kbId, 'web', { startUrls: [`${site.origin}/lim/`], maxPages: 2 });
    const first = await sync(kbId, id);
    expect(first).toMatchObject({ pageCount: 2, progress: { pagesSeen: 2, changed: 2 } });
    expect(site.asked().filter((p) => p.startsWith('/lim/'))).toEqual(['/lim/', '/lim/1']);
    const again = await sync(kbId, id);
    expect(again).toMatchObject({ pageCount: 2, progress: { pagesSeen: 2, unchanged: 2, removed: 0 } });
  });
});

describe('a sync in steps', () => {
  it('keeps what is left between steps, each queued by the one before, and ends with the same counts', async () => {
    vi.stubEnv('KNOWLEDGE_SYNC_STEP_MS', '0');
    try {
      site.pages.set('/steps/', {
        body: articlePage('Steps', 'The zqsteps page.', ['/steps/1', '/steps/2', '/steps/3']),
      });
      for (const n of [1, 2, 3]) site.pages.set(`/steps/${n}`, { body: articlePage(`Step ${n}`, `Step zqstep${n}.`) });
      const kbId = (await newBase(owner)).id;
      const id = await source(kbId, 'web', { startUrls: [`${site.origin}/steps/`] });
      const from = sentMessages.length;
      const done = await sync(kbId, id);
      expect(done).toMatchObject({ pageCount: 4, progress: { pagesSeen: 4, changed: 4, failed: 0 } });
      const steps = sentMessages.slice(from).filter((m) => m.message.type === 'knowledge.sync-source');
      expect(steps).toHaveLength(4);
      expect(await texts(kbId, 'zqstep3')).toEqual(['/steps/3']);
    } finally {
      vi.stubEnv('KNOWLEDGE_SYNC_STEP_MS', '200000');
    }
  });
});

describe('a sitemap sync', () => {
  it('reads a gzip sitemap index, honours lastmod, and removes a page dropped from the sitemap at its second miss', async () => {
    const o = site.origin;
    const one = (p2: string) =>
      urlset([
        { loc: `${o}/sm/p1`, lastmod: '2026-11-01' },
        { loc: `${o}/sm/p2`, lastmod: p2 },
      ]);
    site.pages.set('/sm/index.xml.gz', {
      type: 'application/gzip',
      body: gz(sitemapIndex([`${o}/sm/one.xml.gz`, `${o}/sm/two.xml`])),
    });
    site.pages.set('/sm/one.xml.gz', { type: 'application/gzip', body: gz(one('2026-11-01')) });
    site.pages.set('/sm/two.xml', {
      type: 'application/xml',
      body: urlset([{ loc: `${o}/sm/p3`, lastmod: '2026-11-01T10:00:00Z' }]),
    });
    for (const [p, w] of [
      ['p1', 'zqone'],
      ['p2', 'zqtwo'],
      ['p3', 'zqthree'],
    ])
      site.pages.set(`/sm/${p}`, { body: articlePage(p!, `Page ${w}.`) });
    const kbId = (await newBase(owner)).id;
    const id = await source(kbId, 'sitemap', { sitemapUrl: `${o}/sm/index.xml.gz` });

    const first = await sync(kbId, id);
    expect(first).toMatchObject({ pageCount: 3, progress: { pagesSeen: 3, changed: 3, failed: 0 } });

    // Nothing newer in the sitemap: no page is even asked for.
    const second = await sync(kbId, id);
    expect(second.progress).toMatchObject({ pagesSeen: 3, changed: 0, unchanged: 3 });
    expect(site.asked().filter((p) => p.startsWith('/sm/p'))).toEqual([]);

    // p2 is newer and changed; p3 leaves the sitemap.
    site.pages.set('/sm/one.xml.gz', { type: 'application/gzip', body: gz(one('2026-11-20')) });
    site.pages.set('/sm/p2', { body: articlePage('p2', 'Page zqtwonew.') });
    site.pages.set('/sm/two.xml', { type: 'application/xml', body: urlset([]) });
    const third = await sync(kbId, id);
    expect(third.progress).toMatchObject({ pagesSeen: 2, changed: 1, unchanged: 1, removed: 0 });
    expect(site.asked().filter((p) => p.startsWith('/sm/p'))).toEqual(['/sm/p2']);
    expect(await texts(kbId, 'zqtwonew')).toEqual(['/sm/p2']);
    expect(await texts(kbId, 'zqthree')).toEqual(['/sm/p3']);

    const fourth = await sync(kbId, id);
    expect(fourth).toMatchObject({ pageCount: 2, progress: { removed: 1 } });
    expect(await texts(kbId, 'zqthree')).toEqual([]);
  });
});
