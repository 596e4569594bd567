import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_MODEL_IDS } from '#areas/llm-gateway/catalog.ts';
import { rerank } from '#areas/llm-gateway/rerank.ts';
import { writeSecret } from '#areas/vault/store.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { ip, newKey, userSays, v1 } from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { putServedModel, startOpenAiServer, type FakeOpenAi } from '#test/support/openai-server.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * The OpenAI-compatible provider end to end: the local model served over HTTP by an
 * OpenAI-compatible server started here, its API key held in the vault, called through the gateway.
 */
const API_KEY = `sk-test-${crypto.randomUUID()}`;
let server: FakeOpenAi;
let key: string;
let owner: string;
let tenant: string;
let modelName: string;

beforeAll(async () => {
  server = await startOpenAiServer(API_KEY);
  await writeSecret('llm', 'SELF_HOSTED_KEY', API_KEY);
  const admin = await tokenFor({ role: 'SystemAdmin' });
  const put = (id: string, body: Record<string, unknown>) =>
    invoke('PUT', `/api/llm-gateway/models/${id}`, { token: admin, ip: ip(), body });
  modelName = 'self-hosted-chat';
  const chat = await put(crypto.randomUUID(), {
    name: modelName,
    provider: 'openai-compatible',
    providerModel: 'echo-7b',
    kind: 'chat',
    inputPricePerMillion: 0.1,
    outputPricePerMillion: 0.2,
    contextWindow: 32_000,
    fallbackModelIds: [LOCAL_MODEL_IDS.chat],
    baseUrl: server.baseUrl,
    apiKeySecret: 'llm/SELF_HOSTED_KEY',
  });
  expect(chat).toAnswer(201);
  expect(chat.json.result).not.toHaveProperty('apiKeySecret');
  const embed = await putServedModel(server, {
    name: 'self-hosted-embed',
    providerModel: 'embed-small',
    kind: 'embedding',
    contextWindow: 8000,
    apiKeySecret: 'llm/SELF_HOSTED_KEY',
  });
  expect(embed).toAnswer(201);
  const reranker = await putServedModel(server, {
    name: 'self-hosted-rerank',
    providerModel: 'rerank-small',
    kind: 'rerank',
    apiKeySecret: 'llm/SELF_HOSTED_KEY',
  });
  expect(reranker).toAnswer(201);
  tenant = await newTenant({ planType: 2 });
  owner = await newTenant({ planType: 2 });
  owner = await tokenFor({ tenantId: tenant });
  key = (await newKey(owner)).key;
});

afterAll(() => server?.close());

describe('an OpenAI-compatible endpoint behind the gateway', () => {
  it('answers a chat with the vault-held API key and the catalog providerModel, billed at the catalog price', async () => {
    const res = await v1('POST', '/chat/completions', key, {
      body: { model: modelName, messages: userSays('over http') },
    });
    expect(res).toAnswer(200);
    expect(res.json.model).toBe(modelName);
    expect(res.json.choices[0].message.content).toBe('You said: over http');
    const sent = server.requests.at(-1)!;
    expect(sent.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent.body).toMatchObject({ model: 'echo-7b', max_tokens: 1024 });
    const usage = (await invoke('GET', '/api/llm-gateway/usage', { token: owner, ip: ip() })).json.result;
    const u = res.json.usage;
    expect(usage.models.find((m: { model: string }) => m.model === modelName).spendUsd).toBeCloseTo(
      (u.prompt_tokens * 0.1 + u.completion_tokens * 0.2) / 1_000_000,
      9,
    );
  });

  it('streams, reassembling a tool call sent in pieces', async () => {
    const tools = [{ type: 'function', function: { name: 'find_flight', parameters: { type: 'object' } } }];
    const res = await v1('POST', '/chat/completions', key, {
      body: { model: modelName, stream: true, tools, messages: userSays('find_flight {"to":"LIS"}') },
    });
    expect(res).toAnswer(200);
    const chunks = res.text
      .split('\n\n')
      .filter((e) => e && e !== 'data: [DONE]')
      .map((e) => JSON.parse(e.slice(6)));
    const call = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? [])[0];
    expect(call.function).toEqual({ name: 'find_flight', arguments: '{"to":"LIS"}' });
    expect(chunks.at(-1).choices[0].finish_reason).toBe('tool_calls');
  });

  it('embeds through the endpoint', async () => {
    const res = await v1('POST', '/embeddings', key, { body: { model: 'self-hosted-embed', input: ['a b', 'c'] } });
    expect(res).toAnswer(200);
    expect(res.json.data.map((d: { embedding: number[] }) => d.embedding.length)).toEqual([256, 256]);
    expect(server.requests.at(-1)!.path).toBe('/v1/embeddings');
  });

  it('reranks through the endpoint (its /rerank), metered on the tokens it reports', async () => {
    const out = await rerank({
      tenantId: tenant,
      caller: { kind: 'user', userId: crypto.randomUUID() },
      requestId: crypto.randomUUID(),
      model: 'self-hosted-rerank',
      query: 'open hours',
      documents: ['a refund policy', 'our open hours are nine to five'],
      topN: 1,
    });
    expect(out).toMatchObject({ model: 'self-hosted-rerank', ranked: [{ index: 1 }] });
    const sent = server.requests.at(-1)!;
    expect(sent).toMatchObject({ path: '/v1/rerank', authorization: `Bearer ${API_KEY}` });
    expect(sent.body).toEqual({
      model: 'rerank-small',
      query: 'open hours',
      documents: ['a refund policy', 'our open hours are nine to five'],
      top_n: 1,
    });
    expect(out.usage.promptTokens).toBe(14);
  });

  it('a 5xx from the endpoint moves the call to the fallback (local-chat)', async () => {
    server.failWith = 502;
    try {
      const res = await v1('POST', '/chat/completions', key, {
        body: { model: modelName, messages: userSays('down?') },
      });
      expect(res).toAnswer(200);
      expect(res.json.model).toBe('local-chat');
    } finally {
      server.failWith = null;
    }
  });
});
