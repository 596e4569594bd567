import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminMadeTenant, e2e, send, until } from '#test/support/e2e.ts';

/**
 * The LLM gateway as an OpenAI client sees it: the official `openai` package
 * against the local server with a gateway key, over real HTTP, streams through the streaming front door.
 */
let admin: string;
let owner: string;
let slug: string;
let keyId: string;
let client: OpenAI;
/** What the client was told it used: the usage route and analytics must agree with it. */
const seen = { tokens: 0, requests: 0 };

const gateway = (apiKey: string) =>
  new OpenAI({ apiKey, baseURL: `${e2e().baseUrl}/api/llm-gateway/v1`, maxRetries: 0 });

const count = (u: { total_tokens: number } | undefined | null) => {
  seen.tokens += u?.total_tokens ?? 0;
  seen.requests++;
};

beforeAll(async () => {
  ({ admin, slug, owner } = await adminMadeTenant({
    slugPrefix: 'openai',
    name: 'OpenAI Client Co',
    planType: 2,
    maxAgents: 1,
    maxKnowledgeBases: 1,
  }));
  const key = await send('POST', '/api/llm-gateway/keys', { token: owner, body: { name: 'openai client' } });
  expect(key).toAnswer(201);
  keyId = key.json.result.id;
  client = gateway(key.json.result.key);
});

describe('the official openai client against the gateway', () => {
  it('lists the models', async () => {
    const ids = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(expect.arrayContaining(['local-chat', 'local-chat-large', 'local-flaky', 'local-embed']));
  });

  it('creates a completion', async () => {
    const c = await client.chat.completions.create({
      model: 'local-chat',
      messages: [{ role: 'user', content: 'good morning' }],
    });
    expect(c.choices[0]?.message.content).toBe('You said: good morning');
    expect(c.model).toBe('local-chat');
    count(c.usage);
  });

  it('streams: events arrive one by one as the model produces them, with a usage chunk last', async () => {
    const started = Date.now();
    const stream = await client.chat.completions.create({
      model: 'local-chat',
      messages: [{ role: 'user', content: 'one two three four five six seven eight' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const arrivals: number[] = [];
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      arrivals.push(Date.now() - started);
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('You said: one two three four five six seven eight');
    // role chunk + 10 words + finish chunk + usage chunk
    expect(arrivals.length).toBe(13);
    // The model pauses 25 ms between words: had the answer been buffered, every event would
    // arrive together; streamed, the first word arrives well before the last.
    expect(arrivals.at(-1)! - arrivals[1]!).toBeGreaterThanOrEqual(9 * 25 * 0.8);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    count(usage);
  });

  it('makes a tool call round trip', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: { name: 'lookup_order', parameters: { type: 'object', properties: { id: { type: 'string' } } } },
      },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Please lookup_order {"id":"A-17"}' },
    ];
    const first = await client.chat.completions.create({ model: 'local-chat', messages, tools });
    count(first.usage);
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function).toEqual({ name: 'lookup_order', arguments: '{"id":"A-17"}' });
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'shipped' });
    const second = await client.chat.completions.create({ model: 'local-chat', messages, tools });
    count(second.usage);
    expect(second.choices[0]?.message.content).toBe('The tool lookup_order returned: shipped');
  });

  it('falls back from local-flaky and names the model that answered', async () => {
    const c = await client.chat.completions.create({
      model: 'local-flaky',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(c.model).toBe('local-chat');
    count(c.usage);
  });

  it('creates embeddings', async () => {
    const e = await client.embeddings.create({ model: 'local-embed', input: ['alpha', 'beta'] });
    expect(e.data).toHaveLength(2);
    expect(e.data[0]?.embedding).toHaveLength(256);
    count(e.usage);
  });

  it('the usage route and GET /api/analytics/llm agree with what the client saw', async () => {
    // A call's usage is written just after its answer's last byte: every view shows it within moments.
    const read = async () => ({
      usage: (await send('GET', '/api/llm-gateway/usage', { token: owner })).json.result,
      analytics: (await send('GET', '/api/analytics/llm', { token: owner })).json.result,
    });
    const caughtUp = ({ usage, analytics }: Awaited<ReturnType<typeof read>>) =>
      usage.tokensUsed === seen.tokens &&
      usage.keys[0]?.requests === seen.requests &&
      analytics.totalRequests === seen.requests;
    const { usage, analytics } = await until(read, caughtUp, 5_000);
    expect(usage.tokensUsed).toBe(seen.tokens);
    expect(usage.keys).toEqual([expect.objectContaining({ keyId, requests: seen.requests })]);
    expect(analytics.totalRequests).toBe(seen.requests);
    expect(analytics.totalTokensUsed).toBe(seen.tokens);
    expect(analytics.totalCostUSD).toBeCloseTo(usage.spendUsd, 6);
  });

  it('a client that disconnects mid-stream is billed for what was produced up to then', async () => {
    const made = await send('POST', '/api/llm-gateway/keys', { token: owner, body: { name: 'leaver' } });
    const leaver = gateway(made.json.result.key);
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    const controller = new AbortController();
    const stream = await leaver.chat.completions.create(
      { model: 'local-chat', messages: [{ role: 'user', content: words }], stream: true },
      { signal: controller.signal },
    );
    let received = 0;
    try {
      for await (const _ of stream) if (++received === 4) controller.abort();
    } catch {
      // the abort ends the loop
    }
    const billed = async () =>
      (
        (await send('GET', '/api/llm-gateway/usage', { token: owner })).json.result.keys as {
          keyId: string;
          completionTokens: number;
        }[]
      ).find((k) => k.keyId === made.json.result.id);
    const row = await until(billed, (found) => !!found, 5_000);
    // Some words were produced and billed, far fewer than the whole answer (42 words, 25 ms apart).
    expect(row?.completionTokens).toBeGreaterThan(0);
    expect(row!.completionTokens).toBeLessThan(40);
    const usage = (await send('GET', '/api/llm-gateway/usage', { token: owner })).json.result;
    seen.tokens = usage.tokensUsed;
  });

  it('an exhausted allowance is insufficient_quota', async () => {
    const set = await send('PUT', `/api/tenants/${slug}`, {
      token: admin,
      body: { maxTokensPerMonth: seen.tokens + 1 },
    });
    expect(set).toAnswer(200);
    const refused = await client.chat.completions
      .create({ model: 'local-chat', messages: [{ role: 'user', content: 'one more' }] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).code).toBe('insufficient_quota');
  });

  it('a revoked key is refused at once', async () => {
    const made = await send('POST', '/api/llm-gateway/keys', { token: owner, body: { name: 'short-lived' } });
    const shortLived = gateway(made.json.result.key);
    expect((await shortLived.models.list()).data.length).toBeGreaterThan(0);
    expect(await send('DELETE', `/api/llm-gateway/keys/${made.json.result.id}`, { token: owner })).toAnswer(204);
    const refused = await shortLived.chat.completions
      .create({ model: 'local-chat', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_api_key');
  });
});
