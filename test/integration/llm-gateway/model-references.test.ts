import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_MODEL_IDS } from '#areas/llm-gateway/catalog.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

let owner: string;

beforeAll(async () => {
  owner = await tokenFor({ tenantId: await newTenant({ planType: 2, maxKnowledgeBases: 10 }) });
});

const fieldsOf = (res: { json: { error?: { details?: { path: string }[] } } }) =>
  (res.json.error?.details ?? []).map((d) => d.path);

describe('a knowledge base names a catalog embedding model', () => {
  it('an embeddingModelId that names no model, or a chat model, is 400 naming the field', async () => {
    for (const embeddingModelId of [crypto.randomUUID(), LOCAL_MODEL_IDS.chat]) {
      const res = await invoke('POST', '/api/knowledge/bases', {
        token: owner,
        body: { name: 'Docs', embeddingModelId },
      });
      expect(res, embeddingModelId).toAnswer(400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['body.embeddingModelId']);
    }
  });

  it('the catalog embedding model, or none (the default), is taken', async () => {
    for (const embeddingModelId of [LOCAL_MODEL_IDS.embed, null]) {
      const res = await invoke('POST', '/api/knowledge/bases', {
        token: owner,
        body: { name: 'Docs', embeddingModelId },
      });
      expect(res).toAnswer(201);
      expect(res.json.result.embeddingModelId).toBe(embeddingModelId);
    }
  });
});

describe('a prompt names a catalog chat model', () => {
  it('a modelId that names no model, or an embedding model, is 400 naming the field, on create and on update', async () => {
    for (const modelId of [crypto.randomUUID(), LOCAL_MODEL_IDS.embed]) {
      const res = await invoke('POST', '/api/prompts', {
        token: owner,
        body: { title: 'Greeter', content: 'Hi', modelId },
      });
      expect(res, modelId).toAnswer(400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['body.modelId']);
    }
    const ok = await invoke('POST', '/api/prompts', {
      token: owner,
      body: { title: 'Greeter', content: 'Hi', modelId: LOCAL_MODEL_IDS.chat },
    });
    expect(ok).toAnswer(201);
    const put = await invoke('PUT', `/api/prompts/${ok.json.result.id}`, {
      token: owner,
      body: { modelId: crypto.randomUUID() },
    });
    expect(put).toAnswer(400, 'VALIDATION_ERROR');
    expect(fieldsOf(put)).toEqual(['body.modelId']);
    const read = await invoke('GET', `/api/prompts/${ok.json.result.id}`, { token: owner });
    expect(read.json.result.modelId).toBe(LOCAL_MODEL_IDS.chat);
    expect(
      await invoke('PUT', `/api/prompts/${ok.json.result.id}`, { token: owner, body: { modelId: null } }),
    ).toAnswer(200);
  });
});
