import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant } from '#test/support/fixtures.ts';
import { ip, newKey, userSays, v1 } from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/** What an OpenAI client reads from the gateway's `/v1` answers beyond the happy path. */
let owner: string;
let key: string;
beforeAll(async () => {
  owner = await tokenFor({ tenantId: await newTenant({ planType: 2 }) });
  key = (await newKey(owner)).key;
});

const openAiRefusal = (param: string, message: RegExp) => ({
  error: { message: expect.stringMatching(message), type: 'invalid_request_error', code: expect.any(String), param },
});

describe('parameters the gateway cannot honour are refused by name, not ignored', () => {
  it('n > 1 on a chat completion is 400 naming n; n = 1 is answered', async () => {
    const ask = { model: 'local-chat', messages: userSays('hi') };
    const many = await v1('POST', '/chat/completions', key, { body: { ...ask, n: 3 } });
    expect(many.status, many.text).toBe(400);
    expect(many.json).toEqual(openAiRefusal('n', /n = 1/));
    expect((await v1('POST', '/chat/completions', key, { body: { ...ask, n: 1 } })).status).toBe(200);
  });

  it('embedding dimensions is 400 naming dimensions', async () => {
    const res = await v1('POST', '/embeddings', key, { body: { model: 'local-embed', input: 'x', dimensions: 64 } });
    expect(res.status, res.text).toBe(400);
    expect(res.json).toEqual(openAiRefusal('dimensions', /Not supported/));
  });
});

describe('a model asked for the other kind of call', () => {
  it('is named as the kind it is (404 model_not_found), not as missing', async () => {
    const chat = await v1('POST', '/chat/completions', key, {
      body: { model: 'local-embed', messages: userSays('x') },
    });
    expect(chat.status).toBe(404);
    expect(chat.json.error).toMatchObject({
      code: 'model_not_found',
      message: expect.stringMatching(/'local-embed' is an embedding model/),
    });
    const embed = await v1('POST', '/embeddings', key, { body: { model: 'local-chat', input: 'x' } });
    expect(embed.json.error.message).toEqual(expect.stringMatching(/'local-chat' is a chat model/));
    const missing = await v1('POST', '/embeddings', key, { body: { model: 'no-such-model', input: 'x' } });
    expect(missing.json.error.message).toEqual(expect.stringMatching(/does not exist/));
  });
});

describe('gateway keys', () => {
  it('cannot be created already expired (400 naming expiresAt)', async () => {
    const res = await invoke('POST', '/api/llm-gateway/keys', {
      token: owner,
      ip: ip(),
      body: { name: 'late', expiresAt: new Date(Date.now() - 1000).toISOString() },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'body.expiresAt', message: expect.stringMatching(/future/) }],
    });
  });
});
