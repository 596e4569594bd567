import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { KB, newBase, retrieveAs, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { runTurn } from '#areas/agents/runtime.ts';
import { activePrompt, agentItem, snapshotOf } from '#test/support/agents-runtime.ts';

/**
 * A `site` source: the tenant's own content site read through the content area's port (no HTTP),
 * synced when a page is published, edited, translated or unpublished, and when a post is.
 */
useKnowledgeStandIns();

const A = '/api/content/admin';
let tenantId: string;
let owner: string;
let admin: string;
beforeAll(async () => {
  tenantId = await newTenant({ maxKnowledgeBases: 10, planType: 2 });
  owner = await tokenFor({ tenantId });
  admin = await tokenFor({ role: 'SystemAdmin' });
});

const as = (token: string) => ({
  post: (path: string, body?: unknown) => invoke('POST', path, { token, body }),
  put: (path: string, body?: unknown) => invoke('PUT', path, { token, body }),
  patch: (path: string) => invoke('PATCH', path, { token }),
  get: (path: string) => invoke('GET', path, { token }),
});
const blocks = (text: string) =>
  JSON.stringify([
    { type: 'heading', text: 'Opening hours' },
    { type: 'text', text, url: 'https://cdn.example/zqurl.png' },
  ]);

async function newSite(tenant = tenantId) {
  const res = await as(admin).post(`${A}/sites`, {
    tenantId: tenant,
    domain: `help-${crypto.randomUUID().slice(0, 8)}.example.com`,
    isMaster: false,
    defaultLocale: 'en',
    themeConfig: {},
    metadata: {},
    isActive: true,
  });
  expect(res).toAnswer(201);
  return res.json.result as { id: string; domain: string };
}

const source = async (kbId: string) => {
  const sources = (await as(owner).get(`${KB}/${kbId}/sources`)).json.result.items;
  return sources[0];
};
const cited = async (kbId: string, q: string) =>
  (await retrieveAs(owner, kbId, { query: q, mode: 'keyword' })).map((m) => m.sourceUrl);

describe('a site source', () => {
  it('is refused for a site of another tenant, or an unknown one', async () => {
    const kbId = (await newBase(owner)).id;
    const foreign = await newSite(await newTenant());
    for (const siteId of [foreign.id, crypto.randomUUID()]) {
      const res = await as(owner).post(`${KB}/${kbId}/sources`, { type: 'site', name: 'Own', settings: { siteId } });
      expect(res).toAnswer(400);
      expect(res.json.error.details).toEqual([
        { path: 'body.settings.siteId', message: expect.stringMatching(/No content site/) },
      ]);
    }
  });

  it('follows the site: a page published, edited, translated and unpublished, a post published', async () => {
    const site = await newSite();
    const page = await as(admin).post(`${A}/sites/${site.id}/pages`, {
      slug: 'hours',
      pageType: 0,
      sortOrder: 0,
      isPublished: false,
      settings: '{}',
    });
    expect(page).toAnswer(201);
    const pageId = page.json.result.id;
    expect(
      await as(admin).put(`${A}/pages/${pageId}/translations/en`, {
        title: 'Hours',
        contentBlocks: blocks('Open zqnine to five.'),
      }),
    ).toAnswer(200);

    const kbId = (await newBase(owner)).id;
    const created = await as(owner).post(`${KB}/${kbId}/sources`, {
      type: 'site',
      name: 'Own site',
      settings: { siteId: site.id },
    });
    expect(created).toAnswer(201);
    const sync = await as(owner).post(`${KB}/${kbId}/sources/${created.json.result.id}/sync`);
    expect(sync).toAnswer(202);
    // Nothing published yet.
    expect(await source(kbId)).toMatchObject({ syncStatus: 'Completed', pageCount: 0 });

    // Published: the sync runs on its own and the page is cited by its public URL.
    expect(await as(admin).patch(`${A}/sites/${site.id}/pages/${pageId}/publish`)).toAnswer(200);
    expect(await source(kbId)).toMatchObject({ syncStatus: 'Completed', pageCount: 1, progress: { changed: 1 } });
    const url = `https://${site.domain}/en/hours`;
    expect(await cited(kbId, 'zqnine')).toEqual([url]);
    expect(await cited(kbId, 'zqurl')).toEqual([]);

    // Edited and republished: the new text answers, the old does not.
    expect(
      await as(admin).put(`${A}/pages/${pageId}/translations/en`, {
        title: 'Hours',
        contentBlocks: blocks('Open zqten to six.'),
      }),
    ).toAnswer(200);
    expect(await source(kbId)).toMatchObject({ pageCount: 1, progress: { changed: 1, unchanged: 0 } });
    expect(await cited(kbId, 'zqten')).toEqual([url]);
    expect(await cited(kbId, 'zqnine')).toEqual([]);
    // An agent on the base answers from the new text and cites the page by its URL.
    const prompt = await activePrompt(tenantId, 'You are {{agent_name}}.');
    const item = await agentItem(tenantId, { promptId: prompt.promptId, knowledgeBaseIds: [kbId] });
    const answer = await runTurn({
      tenantId,
      agent: snapshotOf(item, prompt.promptVersionId),
      messages: [{ role: 'user', content: 'Opening hours zqten?' }],
      variables: {},
      caller: { kind: 'agent', agentId: item.id },
      requestId: crypto.randomUUID(),
    });
    expect(answer.citations[0]).toMatchObject({ documentTitle: 'Hours', sourceUrl: url });

    // A second locale is a page of its own; the unchanged one costs nothing.
    expect(
      await as(admin).put(`${A}/pages/${pageId}/translations/de`, {
        title: 'Zeiten',
        contentBlocks: blocks('Offen zqzehn.'),
      }),
    ).toAnswer(200);
    expect(await source(kbId)).toMatchObject({ pageCount: 2, progress: { changed: 1, unchanged: 1 } });
    expect(await cited(kbId, 'zqzehn')).toEqual([`https://${site.domain}/de/hours`]);

    // A published post with a translation.
    const post = await as(admin).post(`${A}/sites/${site.id}/blog`, {
      slug: 'news',
      authorName: 'Team',
      category: 'news',
      tags: [],
      isPublished: true,
      publishedAt: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(post).toAnswer(201);
    expect(
      await as(admin).put(`${A}/blog/${post.json.result.id}/translations/en`, {
        title: 'News',
        bodyHtml: '<p>We zqmoved offices.</p>',
      }),
    ).toAnswer(200);
    expect(await cited(kbId, 'zqmoved')).toEqual([`https://${site.domain}/en/blog/news`]);

    // Unpublished: its pages leave at once.
    expect(await as(admin).patch(`${A}/sites/${site.id}/pages/${pageId}/publish`)).toAnswer(200);
    expect(await source(kbId)).toMatchObject({ pageCount: 1, progress: { removed: 2 } });
    expect(await cited(kbId, 'zqten')).toEqual([]);
    expect(await cited(kbId, 'zqzehn')).toEqual([]);
  });
});
