import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { adminMadeTenant, api, e2e, until } from '#test/support/e2e.ts';

/**
 * Knowledge served over MCP against the local server, as a tenant's staff use it from an MCP
 * client: the official SDK's client, over real HTTP, with the endpoint's URL and key as minted.
 */
describe('a knowledge base searched from an MCP client', () => {
  it('lists search and fetch and finds the indexed passage', async () => {
    const { owner } = await adminMadeTenant({ slugPrefix: 'kbmcp', planType: 2, maxAgents: 1, maxKnowledgeBases: 2 });
    const as = (method: string, path: string, body?: unknown) => api(method, path, { token: owner, body });
    const kb = await as('POST', '/api/knowledge/bases', { name: 'Field notes' });
    expect(kb).toAnswer(201);
    const kbId = kb.json.result.id as string;
    const doc = await as('POST', `/api/knowledge/bases/${kbId}/documents`, {
      title: 'Tide tables',
      text: 'The harbour master posts the spring tide tables on the pier gate every Monday.',
    });
    expect(doc).toAnswer(202);
    await until(
      () => as('GET', `/api/knowledge/bases/${kbId}/documents`),
      (r) => r.json.result.items[0]?.status === 'Indexed',
    );
    const minted = await as('POST', `/api/knowledge/bases/${kbId}/mcp`);
    expect(minted).toAnswer(201);
    const { url, key } = minted.json.result as { url: string; key: string };
    expect(url.startsWith(e2e().baseUrl)).toBe(true);

    const client = new Client({ name: 'staff-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['fetch', 'search']);
    const found = await client.callTool({
      name: 'search',
      arguments: { query: 'spring tide tables', mode: 'keyword' },
    });
    const results = (found.structuredContent as { results: { documentTitle: string; documentId: string }[] }).results;
    expect(results[0]).toMatchObject({ documentTitle: 'Tide tables', documentId: doc.json.result.id });
    const fetched = await client.callTool({ name: 'fetch', arguments: { documentId: doc.json.result.id } });
    expect(JSON.stringify(fetched.structuredContent)).toContain('pier gate');
    await client.close();
  });
});
