import { expect } from 'vitest';
import { LOCAL_MODEL_IDS } from '#areas/llm-gateway/catalog.ts';
import { adminMadeTenant, api, until, type ApiResponse } from './e2e.ts';

export type AsOwner = (method: string, path: string, body?: unknown) => Promise<ApiResponse>;

/** A prompt on the local chat model, sent to review and approved as its owner does; its id. */
export async function approvedPrompt(as: AsOwner, title: string, content: string): Promise<string> {
  const prompt = await as('POST', '/api/prompts', { title, content, modelId: LOCAL_MODEL_IDS.chat });
  expect(prompt).toAnswer(201);
  const v = `/api/prompts/${prompt.json.result.id}/versions/${prompt.json.result.versions[0].id}`;
  expect(await as('PUT', `${v}/review`)).toAnswer(204);
  expect(await as('PUT', `${v}/approve`)).toAnswer(204);
  return prompt.json.result.id as string;
}

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
  const { owner, tenantId } = await adminMadeTenant({
    slugPrefix: 'e2e',
    name: opts.tenantName,
    planType: 2,
    maxAgents: 2,
    maxKnowledgeBases: 2,
  });
  const as: AsOwner = (method, path, body) => api(method, path, { token: owner, body });

  const kb = await as('POST', '/api/knowledge/bases', { name: 'Policies' });
  expect(kb).toAnswer(201);
  const doc = await as('POST', `/api/knowledge/bases/${kb.json.result.id}/documents`, opts.document);
  expect(doc).toAnswer(202);
  const indexed = await until(
    () => as('GET', `/api/knowledge/bases/${kb.json.result.id}/documents`),
    (r) => r.json.result.items[0]?.status === 'Indexed',
  );
  expect(indexed.json.result.items[0].status).toBe('Indexed');

  const agent = await as('POST', '/api/ai/agents', {
    name: 'Shop helper',
    promptId: await approvedPrompt(as, 'Support', 'You are {{agent_name}}.'),
    welcomeMessage: opts.welcomeMessage,
    knowledgeBaseIds: [kb.json.result.id],
  });
  expect(agent).toAnswer(201);
  const agentId = agent.json.result.id as string;
  expect(await as('POST', `/api/ai/agents/${agentId}/publish`)).toAnswer(200);
  const widget = await as('POST', `/api/ai/agents/${agentId}/widgets`, { name: 'Shop', allowedOrigins: [opts.origin] });
  expect(widget).toAnswer(201);
  return {
    as,
    tenantId,
    agentId,
    widgetId: widget.json.result.id as string,
    widgetKey: widget.json.result.widgetKey as string,
  };
}
