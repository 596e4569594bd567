import { expect } from 'vitest';
import { LOCAL_MODEL_IDS } from '#areas/ai/gateway/catalog.ts';
import { api, mintToken, type ApiResponse } from './e2e.ts';

/** Polls `read` until `done` holds or `ms` pass; the last answer either way. */
export async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export type AsOwner = (method: string, path: string, body?: unknown) => Promise<ApiResponse>;

/**
 * Over HTTP, as the e2e stories see it: a fresh tenant (made by a SystemAdmin) and its owner; a
 * knowledge base with one document, indexed; an agent from an approved prompt answering from that
 * base, published; and its widget allowed on `origin`.
 */
export async function publishedAgentWithKnowledge(opts: {
  tenantName: string;
  welcomeMessage: string;
  document: { title: string; text: string };
  origin: string;
}) {
  const admin = await mintToken({ role: 'SystemAdmin' });
  const slug = `e2e-${crypto.randomUUID().slice(0, 8)}`;
  const tenant = await api('POST', '/api/tenants', {
    token: admin,
    body: {
      slug,
      name: opts.tenantName,
      email: `o@${slug}.example.com`,
      planType: 2,
      maxAgents: 2,
      maxKnowledgeBases: 2,
      maxSeats: 5,
    },
  });
  expect(tenant.status, tenant.text).toBe(201);
  const owner = await mintToken({ tenantId: tenant.json.result.id });
  const as: AsOwner = (method, path, body) => api(method, path, { token: owner, body });

  const kb = await as('POST', '/api/knowledge/bases', { name: 'Policies' });
  expect(kb.status, kb.text).toBe(201);
  const doc = await as('POST', `/api/knowledge/bases/${kb.json.result.id}/documents`, opts.document);
  expect(doc.status, doc.text).toBe(202);
  const indexed = await until(
    () => as('GET', `/api/knowledge/bases/${kb.json.result.id}/documents`),
    (r) => r.json.result.items[0]?.status === 'Indexed',
  );
  expect(indexed.json.result.items[0].status).toBe('Indexed');

  const prompt = await as('POST', '/api/prompts', {
    title: 'Support',
    content: 'You are {{agent_name}}.',
    modelId: LOCAL_MODEL_IDS.chat,
  });
  const v = `/api/prompts/${prompt.json.result.id}/versions/${prompt.json.result.versions[0].id}`;
  expect((await as('PUT', `${v}/review`)).status).toBe(204);
  expect((await as('PUT', `${v}/approve`)).status).toBe(204);
  const agent = await as('POST', '/api/ai/agents', {
    name: 'Shop helper',
    promptId: prompt.json.result.id,
    welcomeMessage: opts.welcomeMessage,
    knowledgeBaseIds: [kb.json.result.id],
  });
  expect(agent.status, agent.text).toBe(201);
  const agentId = agent.json.result.id as string;
  expect((await as('POST', `/api/ai/agents/${agentId}/publish`)).status).toBe(200);
  const widget = await as('POST', `/api/ai/agents/${agentId}/widgets`, { name: 'Shop', allowedOrigins: [opts.origin] });
  expect(widget.status, widget.text).toBe(201);
  return {
    as,
    agentId,
    widgetId: widget.json.result.id as string,
    widgetKey: widget.json.result.widgetKey as string,
  };
}
