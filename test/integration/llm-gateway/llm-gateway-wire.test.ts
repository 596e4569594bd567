import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { inOneRateWindow, newTenant } from '#test/support/fixtures.ts';
import { ip, newKey, setAllowance, userSays, v1 } from '#test/support/gateway.ts';
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
    expect(many).toAnswer(400);
    expect(many.json).toEqual(openAiRefusal('n', /n = 1/));
    expect(await v1('POST', '/chat/completions', key, { body: { ...ask, n: 1 } })).toAnswer(200);
  });

  it('embedding dimensions is 400 naming dimensions', async () => {
    const res = await v1('POST', '/embeddings', key, { body: { model: 'local-embed', input: 'x', dimensions: 64 } });
    expect(res).toAnswer(400);
    expect(res.json).toEqual(openAiRefusal('dimensions', /Not supported/));
  });
});

describe('a model asked for the other kind of call', () => {
  it('is named as the kind it is (404 model_not_found), not as missing', async () => {
    const chat = await v1('POST', '/chat/completions', key, {
      body: { model: 'local-embed', messages: userSays('x') },
    });
    expect(chat).toAnswer(404);
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
    expect(res).toAnswer(400);
    expect(res.json.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'body.expiresAt', message: expect.stringMatching(/future/) }],
    });
  });
});

/** The official client, its requests served in process by the real handlers; `requests` counts what it sent. */
function openAiClient(apiKey: string) {
  const counter = { requests: 0 };
  const fetch = async (url: string | URL | Request, init: RequestInit = {}) => {
    counter.requests++;
    const u = new URL(String(url));
    const res = await invoke(init.method ?? 'GET', `${u.pathname}${u.search}`, {
      ip: ip(),
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      ...(init.body === undefined || init.body === null ? {} : { rawBody: String(init.body) }),
    });
    return new Response(res.text, { status: res.status, headers: res.headers });
  };
  const client = new OpenAI({ apiKey, baseURL: 'http://gateway.test/api/llm-gateway/v1', fetch });
  return { client, counter };
}

describe('refusals a retry cannot fix', () => {
  const ask = { model: 'local-chat', messages: [{ role: 'user' as const, content: 'hi' }] };

  it('a spent key budget fails the OpenAI client at once, after one request (x-should-retry: false)', async () => {
    const spent = await newKey(owner, { maxBudgetUsd: 0 });
    const { client, counter } = openAiClient(spent.key);
    const err = await client.chat.completions.create(ask).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'budget_exceeded' });
    expect((err as InstanceType<typeof OpenAI.APIError>).headers?.get('x-should-retry')).toBe('false');
    expect(counter.requests).toBe(1);
  });

  it("a spent month's allowance too (insufficient_quota), while a rate limit stays retryable", async () => {
    const tenant = await newTenant({ planType: 2 });
    await setAllowance(tenant, 1);
    const tOwner = await tokenFor({ tenantId: tenant });
    const { client, counter } = openAiClient((await newKey(tOwner)).key);
    const err = await client.chat.completions.create(ask).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, code: 'insufficient_quota' });
    expect(counter.requests).toBe(1);
    const limited = await newKey(tOwner, { rpmLimit: 1 });
    await setAllowance(tenant, 1_000_000);
    const again = await inOneRateWindow(async () => {
      expect(await v1('POST', '/chat/completions', limited.key, { body: ask })).toAnswer(200);
      return v1('POST', '/chat/completions', limited.key, { body: ask });
    });
    expect(again).toAnswer(429, 'rate_limit_exceeded');
    expect(again.headers['x-should-retry']).toBeUndefined();
  });
});

describe('paths under /v1 that no route serves', () => {
  it("answer in OpenAI's error shape: 404 for an unknown path, 405 with Allow for a known one", async () => {
    const { client } = openAiClient(key);
    for (const call of [
      () => client.files.list(),
      () => client.batches.retrieve('b1'),
      () => client.responses.retrieve('resp_x'),
    ]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect(err).toMatchObject({ type: 'invalid_request_error', code: 'route_not_found' });
    }
    const deeper = await v1('PATCH', '/no/such/path', key);
    expect(deeper).toAnswer(404);
    expect(deeper.json.error).toMatchObject({ code: 'route_not_found', type: 'invalid_request_error' });
    const responsesGet = await v1('GET', '/responses', key);
    expect(responsesGet).toAnswer(405);
    expect(responsesGet.headers.allow).toBe('POST');
    expect(responsesGet.json.error.code).toBe('method_not_allowed');
    const wrongMethod = await v1('DELETE', '/models', key);
    expect(wrongMethod).toAnswer(405);
    expect(wrongMethod.headers.allow).toBe('GET');
    expect(wrongMethod.json).toEqual({
      error: { message: expect.any(String), type: 'invalid_request_error', code: 'method_not_allowed', param: null },
    });
    expect(wrongMethod.headers['x-request-id']).toEqual(expect.stringMatching(/^\S+$/));
    const outside = await invoke('GET', '/api/llm-gateway/nothing-here', { token: owner, ip: ip() });
    expect(outside.json.error.code).toBe('ROUTE_NOT_FOUND');
  });
});

describe('x-request-id', () => {
  it('names the request on every /v1 answer: plain, streamed, embeddings, the model list and errors', async () => {
    const ask = { model: 'local-chat', messages: userSays('hi') };
    const plain = await v1('POST', '/chat/completions', key, { body: ask });
    expect(plain.headers['x-request-id']).toEqual(expect.stringMatching(/^\S+$/));
    expect(plain.json.id).toBe(`chatcmpl-${plain.headers['x-request-id']}`);
    const streamed = await v1('POST', '/chat/completions', key, { body: { ...ask, stream: true } });
    expect(streamed.headers['x-request-id']).toEqual(expect.stringMatching(/^\S+$/));
    for (const res of [
      await v1('POST', '/embeddings', key, { body: { model: 'local-embed', input: 'x' } }),
      await v1('GET', '/models', key),
      await v1('POST', '/chat/completions', key, { body: { model: 'local-chat', messages: [] } }),
      await v1('POST', '/chat/completions', 'gk_unknown', { body: ask }),
    ]) {
      expect(res.headers['x-request-id'], res.text).toEqual(expect.stringMatching(/^\S+$/));
    }
  });
});

describe('structured outputs and forced tools on /v1', () => {
  const person = {
    type: 'object',
    properties: { name: { type: 'string' }, mood: { type: 'string', enum: ['happy', 'sad'] } },
    required: ['name', 'mood'],
    additionalProperties: false,
  };
  const asking = (response_format: unknown, extra: Record<string, unknown> = {}) => ({
    body: { model: 'local-chat', messages: userSays('Ada'), response_format, ...extra },
  });
  const schemaFormat = (schema: unknown) => ({
    type: 'json_schema',
    json_schema: { name: 'person', schema, strict: true },
  });
  const sse = (text: string) =>
    text
      .split('\n\n')
      .filter((e) => e.startsWith('data: {'))
      .map((e) => JSON.parse(e.slice(6)));

  it('answers a json_schema response_format with JSON valid against it, plain and streamed (role alone first)', async () => {
    const plain = await v1('POST', '/chat/completions', key, asking(schemaFormat(person)));
    expect(plain).toAnswer(200);
    expect(JSON.parse(plain.json.choices[0].message.content)).toEqual({ name: 'Ada', mood: 'happy' });
    const streamed = await v1('POST', '/chat/completions', key, asking(schemaFormat(person), { stream: true }));
    const chunks = sse(streamed.text);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant' });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('{"name":"Ada","mood":"happy"}');
    const json = await v1('POST', '/chat/completions', key, asking({ type: 'json_object' }));
    expect(JSON.parse(json.json.choices[0].message.content)).toEqual({ reply: 'You said: Ada' });
  });

  it('the first chunk of a streamed tool call carries the role only, no empty content', async () => {
    const res = await v1('POST', '/chat/completions', key, {
      body: {
        model: 'local-chat',
        stream: true,
        messages: userSays('hello'),
        tools: [{ type: 'function', function: { name: 'get_weather' } }],
        tool_choice: 'required',
      },
    });
    const chunks = sse(res.text);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant' });
    expect(chunks[1].choices[0].delta.tool_calls[0].function.name).toBe('get_weather');
    expect(chunks.some((c) => c.choices[0]?.delta.content === '')).toBe(false);
  });

  it('refuses by name what it cannot honour: another format type, a schema that does not compile, a schema the model cannot follow', async () => {
    const grammar = await v1('POST', '/chat/completions', key, asking({ type: 'grammar', grammar: 'x' }));
    expect(grammar).toAnswer(400);
    expect(grammar.json.error).toMatchObject({ type: 'invalid_request_error', param: 'response_format' });
    const broken = await v1('POST', '/chat/completions', key, asking(schemaFormat({ type: 'strin' })));
    expect(broken).toAnswer(400);
    expect(broken.json.error).toMatchObject({
      code: 'invalid_request_error',
      param: 'response_format.json_schema.schema',
      message: expect.stringMatching(/not a valid JSON Schema/),
    });
    const pattern = await v1(
      'POST',
      '/chat/completions',
      key,
      asking(
        schemaFormat({
          type: 'object',
          properties: { zip: { type: 'string', pattern: '^[0-9]{5}$' } },
          required: ['zip'],
        }),
      ),
    );
    expect(pattern).toAnswer(400);
    expect(pattern.json.error).toMatchObject({
      code: 'unsupported_response_format',
      param: 'response_format',
      message: expect.stringMatching(/zip: the local model cannot make a string that matches pattern/),
    });
    expect(pattern.headers['x-should-retry']).toBe('false');
  });

  it('a strict answer that does not conform to its schema is refused (502 model_output_invalid), never passed on', async () => {
    // Both branches admit the local model's string: oneOf wants exactly one.
    const ambiguous = { oneOf: [{ type: 'string' }, { type: 'string', maxLength: 100 }] };
    const res = await v1(
      'POST',
      '/chat/completions',
      key,
      asking(schemaFormat({ type: 'object', properties: { a: ambiguous }, required: ['a'] })),
    );
    expect(res).toAnswer(502);
    expect(res.json.error).toMatchObject({ code: 'model_output_invalid', type: 'api_error' });
    const streamed = await v1(
      'POST',
      '/chat/completions',
      key,
      asking(schemaFormat({ type: 'object', properties: { a: ambiguous }, required: ['a'] }), { stream: true }),
    );
    expect(streamed).toAnswer(200);
    expect(sse(streamed.text).at(-1)).toEqual({ error: expect.objectContaining({ code: 'model_output_invalid' }) });
  });

  it('a forced tool choice must name an offered tool', async () => {
    const res = await v1('POST', '/chat/completions', key, {
      body: {
        model: 'local-chat',
        messages: userSays('hi'),
        tools: [{ type: 'function', function: { name: 'get_weather' } }],
        tool_choice: { type: 'function', function: { name: 'send_mail' } },
      },
    });
    expect(res).toAnswer(400);
    expect(res.json.error).toMatchObject({ param: 'tool_choice', message: expect.stringMatching(/send_mail/) });
    const none = await v1('POST', '/chat/completions', key, {
      body: { model: 'local-chat', messages: userSays('hi'), tool_choice: 'required' },
    });
    expect(none.json.error).toMatchObject({ param: 'tool_choice' });
  });

  it('the Responses API takes text.format, names it when refusing, and echoes it as OpenAI does', async () => {
    const format = { type: 'json_schema', name: 'person', schema: person, strict: true };
    const res = await v1('POST', '/responses', key, { body: { model: 'local-chat', input: 'Ada', text: { format } } });
    expect(res).toAnswer(200);
    expect(JSON.parse(res.json.output[0].content[0].text)).toEqual({ name: 'Ada', mood: 'happy' });
    expect(res.json.text).toEqual({ format: { ...format, description: null }, verbosity: 'medium' });
    const refused = await v1('POST', '/responses', key, {
      body: {
        model: 'local-chat',
        input: 'x',
        text: { format: { ...format, schema: { type: 'string', pattern: '^[0-9]{5}$' } } },
      },
    });
    expect(refused.json.error).toMatchObject({ code: 'unsupported_response_format', param: 'text.format' });
  });
});

describe('embeddings of token ids', () => {
  it('decodes token ids and arrays of them with the gateway tokenizer, as the same texts would embed', async () => {
    const { encodeTokens } = await import('#areas/llm-gateway/tokens.ts');
    const [a, b] = [await encodeTokens('red apple'), await encodeTokens('green pear')];
    const asText = await v1('POST', '/embeddings', key, {
      body: { model: 'local-embed', input: ['red apple', 'green pear'] },
    });
    const asIds = await v1('POST', '/embeddings', key, { body: { model: 'local-embed', input: [a, b] } });
    expect(asIds).toAnswer(200);
    expect(asIds.json.data).toEqual(asText.json.data);
    expect(asIds.json.usage).toEqual(asText.json.usage);
    const one = await v1('POST', '/embeddings', key, { body: { model: 'local-embed', input: a } });
    expect(one.json.data).toEqual([asText.json.data[0]]);
    const unknown = await v1('POST', '/embeddings', key, { body: { model: 'local-embed', input: [[999_999]] } });
    expect(unknown).toAnswer(400);
    expect(unknown.json.error).toMatchObject({ param: 'input.0' });
    const mixed = await v1('POST', '/embeddings', key, { body: { model: 'local-embed', input: ['a', [1]] } });
    expect(mixed).toAnswer(400);
  });
});
