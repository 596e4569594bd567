import { describe, expect, it } from 'vitest';
import { adminMadeTenant, api, until } from '#test/support/e2e.ts';
import { approvedPrompt } from '#test/support/e2e-agents.ts';

/**
 * A knowledge base that follows the tenant's own content site, against the local server as a
 * client drives it: a site and a page made in the content area, a `site` source on a base, the page
 * published, and the agent's answer citing it by its public URL; then the page edited and
 * republished, and the answer citing the new text, not the old. The syncs run on their own, on the
 * content area's events, through the local run's queue.
 */
const A = '/api/content/admin';
const blocks = (text: string) => JSON.stringify([{ type: 'text', text }]);

describe("a base synced from the tenant's own site", () => {
  it('answers from the published page, and from its new text once it is edited and republished', async () => {
    const t = await adminMadeTenant({ slugPrefix: 'kbsite', planType: 2, maxAgents: 2, maxKnowledgeBases: 2 });
    const as = (method: string, path: string, body?: unknown) => api(method, path, { token: t.owner, body });
    const admin = (method: string, path: string, body?: unknown) => api(method, path, { token: t.admin, body });

    const site = await admin('POST', `${A}/sites`, {
      tenantId: t.tenantId,
      domain: `help-${crypto.randomUUID().slice(0, 8)}.example.com`,
      isMaster: false,
      defaultLocale: 'en',
      themeConfig: {},
      metadata: {},
      isActive: true,
    });
    expect(site).toAnswer(201);
    const { id: siteId, domain } = site.json.result as { id: string; domain: string };
    const page = await admin('POST', `${A}/sites/${siteId}/pages`, {
      slug: 'returns',
      pageType: 0,
      sortOrder: 0,
      isPublished: false,
      settings: '{}',
    });
    expect(page).toAnswer(201);
    const pageId = page.json.result.id as string;
    const write = (text: string) =>
      admin('PUT', `${A}/pages/${pageId}/translations/en`, { title: 'Returns', contentBlocks: blocks(text) });
    expect(await write('Parcels may be returned within zqthirty days.')).toAnswer(200);

    const kb = await as('POST', '/api/knowledge/bases', { name: 'Help centre' });
    expect(kb).toAnswer(201);
    const kbId = kb.json.result.id as string;
    const source = await as('POST', `/api/knowledge/bases/${kbId}/sources`, {
      type: 'site',
      name: 'Our site',
      settings: { siteId },
    });
    expect(source).toAnswer(201);
    const sourcePath = `/api/knowledge/bases/${kbId}/sources/${source.json.result.id}`;

    const agent = await as('POST', '/api/ai/agents', {
      name: 'Returns helper',
      promptId: await approvedPrompt(as, 'Returns', 'You are {{agent_name}}.'),
      knowledgeBaseIds: [kbId],
    });
    expect(agent).toAnswer(201);
    const ask = (content: string) =>
      as('POST', `/api/ai/agents/${agent.json.result.id}/chat`, { messages: [{ role: 'user', content }] });
    const cited = async (word: string) => {
      const turn = await ask(`How long for returns ${word}?`);
      expect(turn).toAnswer(200);
      return turn.json.result.citations as { documentId: string; sourceUrl?: string }[];
    };
    // Which pages hold a word, as keyword retrieval finds it (the local model answers in its own words).
    const pagesWith = async (word: string) => {
      const res = await as('POST', `/api/knowledge/bases/${kbId}/retrieve`, { query: word, mode: 'keyword' });
      expect(res).toAnswer(200);
      return (res.json.result as { sourceUrl?: string }[]).map((m) => m.sourceUrl);
    };
    const url = `https://${domain}/en/returns`;

    // Published: the content area's event syncs the source, and the answer cites the page's URL.
    expect(await admin('PATCH', `${A}/sites/${siteId}/pages/${pageId}/publish`)).toAnswer(200);
    await until(
      () => as('GET', sourcePath),
      (r) => r.json.result.pageCount === 1 && r.json.result.syncStatus === 'Completed',
      60_000,
    );
    const first = await until(
      () => cited('zqthirty'),
      (c) => c.some((x) => x.sourceUrl === url),
      60_000,
    );
    const firstDoc = first.find((x) => x.sourceUrl === url)!.documentId;

    // Edited on the published page: the page's new version replaces the old once indexed, and the
    // answer cites it; the old text is found nowhere.
    expect(await write('Parcels may be returned within zqsixty days.')).toAnswer(200);
    const second = await until(
      () => cited('zqsixty'),
      // The new version is indexed first, then the old one is deleted: wait for both.
      (c) =>
        c.some((x) => x.sourceUrl === url && x.documentId !== firstDoc) && !c.some((x) => x.documentId === firstDoc),
      60_000,
    );
    expect(second.map((x) => x.documentId)).not.toContain(firstDoc);
    expect(await pagesWith('zqsixty')).toEqual([url]);
    expect(await pagesWith('zqthirty')).toEqual([]);
    const docs = await as('GET', `/api/knowledge/bases/${kbId}/documents`);
    expect(docs.json.result.items.map((d: { id: string; status: string }) => d.status)).toEqual(['Indexed']);
  }, 180_000);
});
