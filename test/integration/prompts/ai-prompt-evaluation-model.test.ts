import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_MODEL_IDS } from '#areas/llm-gateway/catalog.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { caller } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * Which model a version's evaluation runs on: the prompt's own when it names one, else the model
 * an agent would be given, the platform's default chat model (the gateway's when a call names
 * none); the evaluation says which.
 */
const P = '/api/prompts';
let owner: ReturnType<typeof caller>;

beforeAll(async () => {
  owner = caller(P, await tokenFor({ tenantId: await newTenant({}) }));
});

const CONTENT = 'You are the Acme shop assistant. Only answer questions about orders and returns of the Acme shop.';

async function evaluationOf(body: Record<string, unknown>) {
  const res = await owner.post('', { title: 'Support', content: CONTENT, ...body });
  expect(res).toAnswer(201);
  const v = `/${res.json.result.id}/versions/${res.json.result.versions[0].id}`;
  expect(await owner.put(`${v}/review`, {})).toAnswer(204);
  const e = await owner.get(`${v}/evaluation`);
  expect(e).toAnswer(200);
  return e.json.result;
}

describe('the model an evaluation runs on', () => {
  it('a prompt without a model is evaluated with the platform default chat model, and says so', async () => {
    const e = await evaluationOf({});
    expect(e).toMatchObject({
      status: 'Done',
      error: null,
      model: { id: LOCAL_MODEL_IDS.chat, name: 'local-chat', source: 'platformDefault' },
    });
    expect(e.safety).toEqual(expect.any(Number));
  });

  it('a prompt that names a model is evaluated with it', async () => {
    const e = await evaluationOf({ modelId: LOCAL_MODEL_IDS.gullible });
    expect(e).toMatchObject({
      status: 'Done',
      model: { id: LOCAL_MODEL_IDS.gullible, name: 'local-gullible', source: 'prompt' },
    });
  });
});
