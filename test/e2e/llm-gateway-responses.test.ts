import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, type ModelMessage, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminMadeTenant, e2e, send, until } from '#test/support/e2e.ts';

/**
 * The Responses API as the clients that use it call it, over real HTTP against the local server: the
 * official `openai` package (`client.responses.create`) and the Vercel AI SDK's default OpenAI provider
 * (`createOpenAI(...)(model)`), whose every call is `POST /v1/responses`.
 */
let owner: string;
let keyId: string;
let secret: string;
const baseURL = () => `${e2e().baseUrl}/api/llm-gateway/v1`;
/** What the clients were told they used: the usage route must agree. */
const seen = { tokens: 0, requests: 0 };
const count = (u: { total_tokens?: number; totalTokens?: number } | undefined | null) => {
  seen.tokens += u?.total_tokens ?? u?.totalTokens ?? 0;
  seen.requests++;
};

const lookupOrder = () =>
  tool({
    description: 'Find an order',
    inputSchema: jsonSchema<{ id: string }>({
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
    }),
    execute: async ({ id }) => `order ${id} shipped`,
  });

beforeAll(async () => {
  ({ owner } = await adminMadeTenant({
    slugPrefix: 'responses',
    name: 'Responses Client Co',
    planType: 2,
    maxAgents: 1,
    maxKnowledgeBases: 1,
  }));
  const key = await send('POST', '/api/llm-gateway/keys', { token: owner, body: { name: 'responses clients' } });
  expect(key).toAnswer(201);
  keyId = key.json.result.id;
  secret = key.json.result.key;
});

describe('the official openai client: client.responses.create', () => {
  const client = () => new OpenAI({ apiKey: secret, baseURL: baseURL(), maxRetries: 0 });

  it('answers plain', async () => {
    const r = await client().responses.create({ model: 'local-chat', input: 'good morning' });
    expect(r.output_text).toBe('You said: good morning');
    expect(r.status).toBe('completed');
    count(r.usage);
  });

  it('streams: text deltas arrive one by one as the model produces them, then response.completed', async () => {
    const started = Date.now();
    const stream = await client().responses.create({
      model: 'local-chat',
      input: 'one two three four five six seven eight',
      stream: true,
    });
    const deltas: number[] = [];
    let text = '';
    let completed: OpenAI.Responses.Response | undefined;
    for await (const e of stream) {
      if (e.type === 'response.output_text.delta') {
        deltas.push(Date.now() - started);
        text += e.delta;
      }
      if (e.type === 'response.completed') completed = e.response;
    }
    expect(text).toBe('You said: one two three four five six seven eight');
    expect(deltas).toHaveLength(10);
    // The local server's model pauses 25 ms between words: streamed, not buffered.
    expect(deltas.at(-1)! - deltas[0]!).toBeGreaterThanOrEqual(9 * 25 * 0.8);
    expect(completed?.usage?.output_tokens).toBeGreaterThan(0);
    count(completed?.usage);
  });

  it('makes a function tool round trip with previous_response_id', async () => {
    const tools: OpenAI.Responses.FunctionTool[] = [
      { type: 'function', name: 'lookup_order', parameters: { type: 'object' }, strict: false },
    ];
    const first = await client().responses.create({
      model: 'local-chat',
      input: 'Please lookup_order {"id":"A-17"}',
      tools,
    });
    count(first.usage);
    const call = first.output[0]!;
    if (call.type !== 'function_call') throw new Error(`expected a function call, got ${call.type}`);
    expect(call).toMatchObject({ name: 'lookup_order', arguments: '{"id":"A-17"}' });
    const second = await client().responses.create({
      model: 'local-chat',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'shipped' }],
      tools,
    });
    count(second.usage);
    expect(second.output_text).toBe('The tool lookup_order returned: shipped');
  });
});

describe("the Vercel AI SDK's default OpenAI provider", () => {
  /** The bodies the SDK sent, to see what it asked for. */
  const sent: string[] = [];
  const recording: typeof fetch = (url, init) => {
    sent.push(String(init?.body ?? ''));
    return fetch(url, init);
  };
  const model = () => createOpenAI({ baseURL: baseURL(), apiKey: secret, fetch: recording })('local-chat');

  it('generateText', async () => {
    const r = await generateText({ model: model(), prompt: 'hello there', maxRetries: 0 });
    expect(r.text).toBe('You said: hello there');
    expect(r.finishReason).toBe('stop');
    count(r.usage);
  });

  it('streamText', async () => {
    const r = streamText({ model: model(), prompt: 'stream these words please', maxRetries: 0 });
    const parts: string[] = [];
    for await (const part of r.textStream) parts.push(part);
    expect(parts.join('')).toBe('You said: stream these words please');
    expect(parts.length).toBeGreaterThan(1);
    count(await r.usage);
  });

  it('a tool loop: the tool runs, its result goes back, the model answers', async () => {
    const r = await generateText({
      model: model(),
      prompt: 'Please lookup_order {"id":"Z-9"}',
      tools: { lookup_order: lookupOrder() },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(r.steps).toHaveLength(2);
    expect(r.steps[0]!.toolCalls[0]).toMatchObject({ toolName: 'lookup_order', input: { id: 'Z-9' } });
    expect(r.text).toBe('The tool lookup_order returned: order Z-9 shipped');
    for (const s of r.steps) count(s.usage);
  });

  it('a conversation that goes on from its earlier answer (the SDK sends it as an item_reference)', async () => {
    const first = await generateText({ model: model(), prompt: 'remember the blue door', maxRetries: 0 });
    count(first.usage);
    const messages: ModelMessage[] = [
      { role: 'user', content: 'remember the blue door' },
      ...first.response.messages,
      { role: 'user', content: 'what colour was it' },
    ];
    const next = await generateText({ model: model(), messages, maxRetries: 0 });
    count(next.usage);
    expect(next.text).toBe('You said: what colour was it');
    expect(JSON.parse(sent.at(-1)!).input).toEqual(
      expect.arrayContaining([{ type: 'item_reference', id: expect.stringMatching(/^msg_[0-9a-f]{32}_0$/) }]),
    );
  });

  it('a refusal reaches the SDK as an APICallError with the status and OpenAI code', async () => {
    const wrong = createOpenAI({ baseURL: baseURL(), apiKey: 'gk_not-a-key' })('local-chat');
    const err = await generateText({ model: wrong, prompt: 'hi', maxRetries: 0 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 401 });
    expect((err as { responseBody: string }).responseBody).toEqual(expect.stringMatching(/invalid_api_key/));
  });
});

describe('metering', () => {
  it('every Responses call is recorded once: the usage route agrees with what the clients saw', async () => {
    const read = async () => (await send('GET', '/api/llm-gateway/usage', { token: owner })).json.result;
    const usage = await until(
      read,
      (u) => u.tokensUsed === seen.tokens && u.keys[0]?.requests === seen.requests,
      5_000,
    );
    expect(usage.tokensUsed).toBe(seen.tokens);
    expect(usage.keys).toEqual([expect.objectContaining({ keyId, requests: seen.requests })]);
  });
});
