import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexedText } from '#areas/knowledge/keyword/postings.ts';
import { LOCAL_MODEL_IDS } from '#areas/llm-gateway/catalog.ts';
import { rerankTokens } from '#areas/llm-gateway/rerank.ts';
import { writeSecret } from '#areas/vault/store.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { ip } from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { addText, KB, newBase, retrieveAs, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { putServedModel, startOpenAiServer, type FakeOpenAi } from '#test/support/openai-server.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * A base's opt-in reranker: its best topN fused candidates reordered by a gateway rerank model,
 * metered as the caller's rerank call; a reranker that does not answer leaves the fused order.
 */
useKnowledgeStandIns();

const QUERY = 'how do I reset my password';
// BM25 drops the question's stop words and favours the first page's repeated terms; the local
// reranker reads every word of the question, which the second page holds nearly all of, in order.
const PAGES = [
  { title: 'Password reset', text: 'Reset password: reset the password in settings. Password reset, password.' },
  {
    title: 'Account help',
    text:
      'How do I recover my password? Ask the administrator of your workspace, who can send a new link to ' +
      'your email address and check the audit log for earlier attempts to sign in.',
  },
  { title: 'Opening hours', text: 'The office opens at nine. Passwords are never asked for on the phone.' },
];

let owner: string;
let server: FakeOpenAi;
let downModelId: string;
const titles = (hits: { documentTitle: string }[]) => hits.map((h) => h.documentTitle);

beforeAll(async () => {
  owner = await tokenFor({ tenantId: await newTenant({ planType: 2, maxKnowledgeBases: 5 }) });
  const apiKey = `sk-test-${crypto.randomUUID()}`;
  server = await startOpenAiServer(apiKey);
  await writeSecret('llm', 'RERANK_DOWN_KEY', apiKey);
  downModelId = crypto.randomUUID();
  const put = await putServedModel(
    server,
    {
      name: `rerank-down-${downModelId.slice(0, 8)}`,
      providerModel: 'rerank-small',
      kind: 'rerank',
      apiKeySecret: 'llm/RERANK_DOWN_KEY',
    },
    downModelId,
  );
  expect(put).toAnswer(201);
  server.failWith = 503;
});

afterAll(() => server?.close());

async function baseWith(rerank: Record<string, unknown> | null) {
  const kb = await newBase(owner, rerank ? { rerank } : {});
  for (const p of PAGES) expect(await addText(owner, kb.id, p.title, p.text)).toAnswer(202);
  return kb.id;
}

describe('a base with a reranker', () => {
  it('answers its best candidates in the reranker order, the fused score kept, and meters the call', async () => {
    const plain = await retrieveAs(owner, await baseWith(null), { query: QUERY, mode: 'keyword', topK: 3 });
    expect(titles(plain).slice(0, 2)).toEqual(['Password reset', 'Account help']);
    expect(plain.every((h) => h.rerankScore === null)).toBe(true);

    const kbId = await baseWith({ modelId: LOCAL_MODEL_IDS.rerank, topN: 10 });
    const base = await invoke('GET', `${KB}/${kbId}`, { token: owner });
    expect(base.json.result.rerank).toEqual({ modelId: LOCAL_MODEL_IDS.rerank, topN: 10 });
    const usageBefore = (await invoke('GET', '/api/llm-gateway/usage', { token: owner, ip: ip() })).json.result;
    const hits = await retrieveAs(owner, kbId, { query: QUERY, mode: 'keyword', topK: 3 });
    expect(titles(hits).slice(0, 2)).toEqual(['Account help', 'Password reset']);
    const scores = hits.map((h) => h.rerankScore!);
    expect(scores.every((s) => typeof s === 'number')).toBe(true);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    // The fused score is what it was without a reranker: thresholds and citations keep their meaning.
    const fused = new Map(plain.map((h) => [h.documentTitle, h.score]));
    for (const h of hits) expect(h.score).toBeCloseTo(fused.get(h.documentTitle)!, 9);

    const usage = (await invoke('GET', '/api/llm-gateway/usage', { token: owner, ip: ip() })).json.result;
    const read = await rerankTokens(
      QUERY,
      hits.map((h) => indexedText({ position: h.position, title: h.documentTitle, text: h.text })),
    );
    const reranks = (u: { models: { model: string; requests: number; promptTokens: number }[] }) =>
      u.models.find((m) => m.model === 'local-rerank') ?? { requests: 0, promptTokens: 0 };
    expect(reranks(usage).requests - reranks(usageBefore).requests).toBe(1);
    expect(reranks(usage).promptTokens - reranks(usageBefore).promptTokens).toBe(read);
  });

  it('reranks only its topN: what lies below keeps the fused order, without a reranker score', async () => {
    const kbId = await baseWith({ modelId: LOCAL_MODEL_IDS.rerank, topN: 1 });
    const hits = await retrieveAs(owner, kbId, { query: QUERY, mode: 'keyword', topK: 3 });
    expect(titles(hits).slice(0, 2)).toEqual(['Password reset', 'Account help']);
    expect(hits.map((h) => h.rerankScore === null)).toEqual([false, true, true]);
  });

  it('is set, changed and removed by the update, and refused for a model that is not a reranker', async () => {
    const kbId = await baseWith(null);
    const put = (rerank: unknown) => invoke('PUT', `${KB}/${kbId}`, { token: owner, body: { rerank } });
    const chat = await put({ modelId: LOCAL_MODEL_IDS.chat, topN: 5 });
    expect(chat).toAnswer(400);
    expect(chat.json.error.details).toEqual([
      { path: 'body.rerank.modelId', message: expect.stringMatching(/^Not a rerank model/) },
    ]);
    expect(await put({ modelId: LOCAL_MODEL_IDS.rerank, topN: 0 })).toAnswer(400);
    expect(await put({ modelId: LOCAL_MODEL_IDS.rerank, topN: 101 })).toAnswer(400);
    const set = await put({ modelId: LOCAL_MODEL_IDS.rerank, topN: 5 });
    expect(set).toAnswer(200);
    expect(set.json.result.rerank).toEqual({ modelId: LOCAL_MODEL_IDS.rerank, topN: 5 });
    expect(titles(await retrieveAs(owner, kbId, { query: QUERY, mode: 'keyword' }))[0]).toBe('Account help');
    const cleared = await put(null);
    expect(cleared).toAnswer(200);
    expect(cleared.json.result.rerank).toBeNull();
    expect(titles(await retrieveAs(owner, kbId, { query: QUERY, mode: 'keyword' }))[0]).toBe('Password reset');
  });

  it('answers the fused order when its reranker does not answer, each rerankScore null', async () => {
    const kbId = await baseWith({ modelId: downModelId, topN: 10 });
    const hits = await retrieveAs(owner, kbId, { query: QUERY, mode: 'keyword', topK: 3 });
    expect(titles(hits).slice(0, 2)).toEqual(['Password reset', 'Account help']);
    expect(hits.every((h) => h.rerankScore === null)).toBe(true);
    expect(server.requests.some((r) => r.path === '/v1/rerank')).toBe(true);
  });
});
