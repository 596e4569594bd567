import OpenAI from 'openai';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { localModel } from '#areas/llm-gateway/providers/local-model.ts';
import { ProviderError } from '#areas/llm-gateway/providers/port.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { ip, newKey, setAllowance, v1 } from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/** `POST /v1/responses` as the official client calls it, served in process by the real handlers. */
let tenantId: string;
let owner: string;
let key: { id: string; key: string };
let client: OpenAI;

function openAiClient(apiKey: string) {
  const fetch = async (url: string | URL | Request, init: RequestInit = {}) => {
    const u = new URL(String(url));
    const res = await invoke(init.method ?? 'GET', `${u.pathname}${u.search}`, {
      ip: ip(),
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      ...(init.body === undefined || init.body === null ? {} : { rawBody: String(init.body) }),
    });
    return new Response(res.text, { status: res.status, headers: res.headers });
  };
  return new OpenAI({ apiKey, baseURL: 'http://gateway.test/api/llm-gateway/v1', fetch, maxRetries: 0 });
}

const usage = async () => (await invoke('GET', '/api/llm-gateway/usage', { token: owner, ip: ip() })).json.result;
const tools: OpenAI.Responses.FunctionTool[] = [
  {
    type: 'function',
    name: 'lookup_order',
    parameters: { type: 'object', properties: { id: { type: 'string' } } },
    strict: false,
  },
];

beforeAll(async () => {
  tenantId = await newTenant({ planType: 2 });
  owner = await tokenFor({ tenantId });
  key = await newKey(owner);
  client = openAiClient(key.key);
});

describe('POST /v1/responses, plain', () => {
  it('answers text input with a Response: output_text, usage, ids from the request id; one call, one record', async () => {
    const before = await usage();
    const r = await client.responses.create({ model: 'local-chat', input: 'good morning', instructions: 'Be brief.' });
    expect(r).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'local-chat',
      instructions: 'Be brief.',
      store: true,
      error: null,
    });
    expect(r.id).toEqual(expect.stringMatching(/^resp_[0-9a-f]{32}$/));
    expect(r.output_text).toBe('You said: good morning');
    expect(r.output).toEqual([
      {
        type: 'message',
        id: expect.stringMatching(/^msg_[0-9a-f]{32}_0$/),
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'You said: good morning', annotations: [], logprobs: [] }],
      },
    ]);
    expect(r.usage!.total_tokens).toBe(r.usage!.input_tokens + r.usage!.output_tokens);
    const after = await usage();
    expect(after.tokensUsed - before.tokensUsed).toBe(r.usage!.total_tokens);
    const row = (after.keys as { keyId: string; requests: number }[]).find((k) => k.keyId === key.id);
    expect(
      row!.requests -
        ((before.keys as typeof after.keys).find((k: { keyId: string }) => k.keyId === key.id)?.requests ?? 0),
    ).toBe(1);
  });

  it('takes message items with text parts, developer and system roles', async () => {
    const r = await client.responses.create({
      model: 'local-chat',
      input: [
        { role: 'developer', content: 'You are terse.' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello there' }] },
      ],
    });
    expect(r.output_text).toBe('You said: hello there');
  });

  it('max_output_tokens cuts the answer: status incomplete, reason max_output_tokens', async () => {
    const r = await client.responses.create({
      model: 'local-chat',
      input: 'one two three four five six seven eight nine ten',
      max_output_tokens: 3,
    });
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(r.usage!.output_tokens).toBeLessThanOrEqual(3);
  });

  it('a function tool round trip: function_call item out, function_call_output in', async () => {
    const first = await client.responses.create({
      model: 'local-chat',
      input: 'Please lookup_order {"id":"A-17"}',
      tools,
      store: false,
    });
    const call = first.output.find((o) => o.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'lookup_order', arguments: '{"id":"A-17"}' });
    expect(call!.type === 'function_call' && call!.id).toEqual(expect.stringMatching(/^fc_[0-9a-f]{32}_\d+$/));
    const second = await client.responses.create({
      model: 'local-chat',
      input: [
        { role: 'user', content: 'Please lookup_order {"id":"A-17"}' },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        {
          type: 'function_call_output',
          call_id: call!.type === 'function_call' ? call!.call_id : '',
          output: 'shipped',
        },
      ],
      tools,
    });
    expect(second.output_text).toBe('The tool lookup_order returned: shipped');
  });

  it('tool_choice none sends no tool call', async () => {
    const r = await client.responses.create({
      model: 'local-chat',
      input: 'Please lookup_order {"id":"A-17"}',
      tools,
      tool_choice: 'none',
    });
    expect(r.output.every((o) => o.type === 'message')).toBe(true);
  });
});

describe('stored responses: previous_response_id and item_reference', () => {
  it('continues a stored response, and resolves an item_reference to its output item', async () => {
    const first = await client.responses.create({
      model: 'local-chat',
      input: 'Please lookup_order {"id":"B-2"}',
      tools,
    });
    const call = first.output[0]!;
    expect(call.type).toBe('function_call');
    const next = await client.responses.create({
      model: 'local-chat',
      previous_response_id: first.id,
      input: [
        { type: 'function_call_output', call_id: call.type === 'function_call' ? call.call_id : '', output: 'lost' },
      ],
      tools,
    });
    expect(next.previous_response_id).toBe(first.id);
    expect(next.output_text).toBe('The tool lookup_order returned: lost');

    const byRef = await client.responses.create({
      model: 'local-chat',
      input: [
        { role: 'user', content: 'Please lookup_order {"id":"B-2"}' },
        { type: 'item_reference', id: call.id! },
        { type: 'function_call_output', call_id: call.type === 'function_call' ? call.call_id : '', output: 'found' },
      ],
      tools,
    });
    expect(byRef.output_text).toBe('The tool lookup_order returned: found');
  });

  it('store: false keeps nothing: continuing it is 400 naming previous_response_id', async () => {
    const gone = await client.responses.create({ model: 'local-chat', input: 'hi', store: false });
    expect((gone as unknown as { store: boolean }).store).toBe(false);
    const err = await client.responses
      .create({ model: 'local-chat', input: 'again', previous_response_id: gone.id })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({ status: 400, param: 'previous_response_id', type: 'invalid_request_error' });
  });

  it("another tenant's stored response is not found (400), and spends nothing", async () => {
    const mine = await client.responses.create({ model: 'local-chat', input: 'secret plans' });
    const other = await tokenFor({ tenantId: await newTenant({ planType: 2 }) });
    const theirs = openAiClient((await newKey(other)).key);
    const err = await theirs.responses
      .create({ model: 'local-chat', input: 'what did they say?', previous_response_id: mine.id })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, param: 'previous_response_id' });
    const ref = await theirs.responses
      .create({ model: 'local-chat', input: [{ type: 'item_reference', id: mine.output[0]!.id! }] })
      .catch((e: unknown) => e);
    expect(ref).toMatchObject({ status: 400, param: 'input.0.id' });
    const spent = (await invoke('GET', '/api/llm-gateway/usage', { token: other, ip: ip() })).json.result;
    expect(spent.tokensUsed).toBe(0);
  });
});

describe('POST /v1/responses, streamed', () => {
  it('sends the Responses event types in order, numbered, and the completed response with usage', async () => {
    const stream = await client.responses.create({ model: 'local-chat', input: 'one two three', stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const e of stream) events.push(e);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(5).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const text = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');
    expect(text).toBe('You said: one two three');
    const done = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(done.response.output_text ?? done.response.output).toBeTruthy();
    expect(done.response.usage!.output_tokens).toBeGreaterThan(0);
    expect(done.response.status).toBe('completed');
  });

  it('streams a function call as arguments delta and done events', async () => {
    const stream = await client.responses.create({
      model: 'local-chat',
      input: 'Please lookup_order {"id":"C-3"}',
      tools,
      stream: true,
    });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const e of stream) events.push(e);
    const delta = events.find((e) => e.type === 'response.function_call_arguments.delta');
    expect(delta).toMatchObject({ delta: '{"id":"C-3"}', item_id: expect.stringMatching(/^fc_/) });
    const done = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(done.response.output).toEqual([
      expect.objectContaining({ type: 'function_call', name: 'lookup_order', arguments: '{"id":"C-3"}' }),
    ]);
  });

  it('a model failing after the stream began ends it with response.failed, and bills what was produced', async () => {
    const before = await usage();
    const spy = vi.spyOn(localModel, 'stream').mockImplementationOnce(async function* () {
      yield { type: 'text', text: 'half an' };
      throw new ProviderError('the model fell over', 503, true);
    });
    try {
      const stream = await client.responses.create({ model: 'local-chat', input: 'tell me', stream: true });
      const events: OpenAI.Responses.ResponseStreamEvent[] = [];
      for await (const e of stream) events.push(e);
      const last = events.at(-1)!;
      expect(last.type).toBe('response.failed');
      expect(last.type === 'response.failed' && last.response).toMatchObject({
        status: 'failed',
        error: { code: 'upstream_error', message: expect.stringMatching(/provider failed/) },
      });
    } finally {
      spy.mockRestore();
    }
    const after = await usage();
    const requests = (u: typeof after) =>
      (u.keys as { keyId: string; requests: number }[]).find((k) => k.keyId === key.id)?.requests ?? 0;
    expect(requests(after) - requests(before)).toBe(1);
    expect(after.tokensUsed).toBeGreaterThan(before.tokensUsed);
  });

  it('a refusal before the stream keeps its HTTP status (insufficient_quota)', async () => {
    const poor = await newTenant({ planType: 2 });
    await setAllowance(poor, 1);
    const poorKey = (await newKey(await tokenFor({ tenantId: poor }))).key;
    const res = await v1('POST', '/responses', poorKey, { body: { model: 'local-chat', input: 'hi', stream: true } });
    expect(res).toAnswer(429);
    expect(res.json.error).toMatchObject({ code: 'insufficient_quota', type: 'insufficient_quota' });
  });
});

describe('bad input is a 400 in OpenAI shape, naming the parameter', () => {
  it.each([
    ['an image part', { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'x' }] }] }, /input/],
    ['a built-in tool', { input: 'x', tools: [{ type: 'web_search' }] }, /tools/],
    ['background', { input: 'x', background: true }, /background/],
    ['no input', {}, /input/],
    ['a foreign item reference', { input: [{ type: 'item_reference', id: 'msg_abc' }] }, /input\.0\.id/],
  ])('%s', async (_, body, param) => {
    const res = await v1('POST', '/responses', key.key, { body: { model: 'local-chat', ...body } });
    expect(res).toAnswer(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', param: expect.stringMatching(param) });
  });

  it('an unknown model is 404 model_not_found', async () => {
    const res = await v1('POST', '/responses', key.key, { body: { model: 'nope', input: 'x' } });
    expect(res).toAnswer(404, 'model_not_found');
  });
});

describe('GET /v1/models/{model}', () => {
  it('answers the model object by name, and model_not_found for one the key may not use', async () => {
    const m = await client.models.retrieve('local-chat');
    expect(m).toMatchObject({ id: 'local-chat', object: 'model', owned_by: 'local' });
    const limited = openAiClient((await newKey(owner, { models: ['local-embed'] })).key);
    const err = await limited.models.retrieve('local-chat').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err).toMatchObject({ code: 'model_not_found' });
    const missing = await client.models.retrieve('no-such-model').catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'model_not_found' });
  });
});
