import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { addText, KB, newBase, settled, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * Knowledge served over MCP: a tenant's staff mint an endpoint for one base, and the official SDK's
 * client lists its tools and calls them. The client's requests reach the route's real handler in
 * process (the fetch below turns each into an API Gateway event), as they would over HTTP.
 */
useKnowledgeStandIns();

let owner: string;
let kbId: string;
let otherKb: string;
let documentId: string;

beforeAll(async () => {
  const tenant = await newTenant({ planType: 2, maxKnowledgeBases: 10 });
  owner = await tokenFor({ tenantId: tenant });
  kbId = (await newBase(owner)).id;
  otherKb = (await newBase(owner)).id;
  const added = await addText(
    owner,
    kbId,
    'Lighthouse log',
    'The lighthouse keeper logs the fog horn hours in a brass ledger every night.',
  );
  expect(added).toAnswer(202);
  documentId = added.json.result.id;
  expect((await settled(owner, kbId, documentId)).status).toBe('Indexed');
  const other = await addText(owner, otherKb, 'Bakery', 'Our bakery proofs sourdough loaves for sixteen hours.');
  expect((await settled(owner, otherKb, other.json.result.id)).status).toBe('Indexed');
});

/** A fetch that hands each request to the route's handler, in process. */
const inProcess = async (input: string | URL | Request, init: RequestInit = {}) => {
  const url = new URL(String(input));
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((v, k) => {
    headers[k] = v;
  });
  if ((init.method ?? 'GET') !== 'POST') return new Response(null, { status: 405 });
  const res = await invoke('POST', url.pathname, {
    rawBody: String(init.body ?? ''),
    headers,
    contentType: headers['content-type'] ?? 'application/json',
  });
  return new Response(res.status === 202 ? null : res.text, { status: res.status, headers: res.headers });
};

async function connect(url: string, key: string) {
  const client = new Client({ name: 'staff-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      fetch: inProcess,
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

async function mint(base = kbId) {
  const res = await invoke('POST', `${KB}/${base}/mcp`, { token: owner });
  expect(res).toAnswer(201);
  return res.json.result as { endpointId: string; url: string; key: string; keyId: string };
}

describe('a knowledge base over MCP', () => {
  it("the SDK's client lists search and fetch, searches the base and fetches a document", async () => {
    const e = await mint();
    expect(e.url).toMatch(new RegExp(`/mcp/knowledge/${e.endpointId}$`));
    expect(e.key).toMatch(/^gk_/);
    const client = await connect(e.url, e.key);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['fetch', 'search']);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    const found = await client.callTool({ name: 'search', arguments: { query: 'fog horn ledger', mode: 'keyword' } });
    const results = (found.structuredContent as { results: { documentTitle: string; documentId: string }[] }).results;
    expect(results[0]).toMatchObject({ documentTitle: 'Lighthouse log', documentId });
    // The other base's passages are not this endpoint's.
    const elsewhere = await client.callTool({ name: 'search', arguments: { query: 'sourdough', mode: 'keyword' } });
    expect((elsewhere.structuredContent as { results: unknown[] }).results).toEqual([]);
    const doc = await client.callTool({ name: 'fetch', arguments: { documentId } });
    expect(doc.structuredContent).toMatchObject({
      documentId,
      chunks: [{ position: 0, text: expect.stringMatching(/brass ledger/) }],
    });
    await client.close();
  });

  it("takes only the endpoint's own key, and stops once the key is revoked", async () => {
    const e = await mint();
    const other = await mint(otherKb);
    const call = (endpointId: string, key: string | null) =>
      invoke('POST', `/mcp/knowledge/${endpointId}`, {
        rawBody: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), accept: 'application/json, text/event-stream' },
      });
    expect(await call(e.endpointId, null)).toAnswer(401);
    // Another endpoint's key: the endpoint is not found for it.
    expect(await call(e.endpointId, other.key)).toAnswer(404);
    // An access token is not the endpoint's key either.
    const withToken = await invoke('POST', `/mcp/knowledge/${e.endpointId}`, {
      token: owner,
      rawBody: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(withToken).toAnswer(401);
    // Stateless: a request needs no session before it.
    const listed = await call(e.endpointId, e.key);
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('"name":"search"');
    const client = await connect(e.url, e.key);
    await client.close();
    expect(await invoke('DELETE', `/api/llm-gateway/keys/${e.keyId}`, { token: owner })).toAnswer(204);
    await expect(connect(e.url, e.key)).rejects.toThrow();
  });

  it("the endpoint's key opens nothing of the LLM gateway, where a key of the tenant's own does", async () => {
    const e = await mint();
    const plain = await invoke('POST', '/api/llm-gateway/keys', { token: owner, body: { name: 'Plain' } });
    expect(plain).toAnswer(201);
    const ask = (key: string) =>
      invoke('POST', '/api/llm-gateway/v1/chat/completions', {
        headers: { authorization: `Bearer ${key}` },
        body: { model: 'local-chat', messages: [{ role: 'user', content: 'hi' }] },
      });
    expect(await ask(plain.json.result.key)).toAnswer(200);
    const refused = await ask(e.key);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
  });
});
