import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { bedrockProvider } from '#areas/llm-gateway/providers/bedrock.ts';
import { FormatUnsupported, ProviderError, type ProviderEvent } from '#areas/llm-gateway/providers/port.ts';
import type { CatalogModel } from '#areas/llm-gateway/records.ts';

process.env.AWS_REGION ??= 'us-east-1';

const model = (providerModel: string, kind: CatalogModel['kind'] = 'chat'): CatalogModel => ({
  id: crypto.randomUUID(),
  name: 'claude',
  provider: 'bedrock',
  providerModel,
  kind,
  inputPricePerMillion: 3,
  outputPricePerMillion: 15,
  contextWindow: 200_000,
  fallbackModelIds: [],
  isActive: true,
  createdAt: '',
  updatedAt: '',
});

const bedrock = mockClient(BedrockRuntimeClient);
const provider = bedrockProvider();
const CLAUDE = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object' } } }];

beforeEach(() => bedrock.reset());

describe('Bedrock Converse (aws-sdk-client-mock)', () => {
  it('sends the conversation as Converse expects and maps the answer, tool calls and usage back', async () => {
    // Prepare
    bedrock.on(ConverseCommand).resolves({
      output: {
        message: {
          role: 'assistant',
          content: [
            { text: 'Checking.' },
            { toolUse: { toolUseId: 'tu-1', name: 'get_weather', input: { city: 'Oslo' } } },
          ],
        },
      },
      stopReason: 'tool_use',
      usage: { inputTokens: 42, outputTokens: 7, totalTokens: 49 },
      metrics: { latencyMs: 100 },
    });
    // Act
    const answer = await provider.chat({
      model: model(CLAUDE),
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'tu-0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Bergen"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'tu-0', content: 'rain' },
        { role: 'user', content: 'And Oslo?' },
      ],
      tools,
      toolChoice: 'auto',
      temperature: 0.2,
      maxTokens: 300,
    });
    // Assess
    expect(bedrock.commandCalls(ConverseCommand)[0]!.args[0].input).toEqual({
      modelId: CLAUDE,
      system: [{ text: 'Be brief.' }],
      messages: [
        { role: 'user', content: [{ text: 'Weather?' }] },
        {
          role: 'assistant',
          content: [{ toolUse: { toolUseId: 'tu-0', name: 'get_weather', input: { city: 'Bergen' } } }],
        },
        // The tool result and the next user message are one user turn (Bedrock alternates roles).
        {
          role: 'user',
          content: [{ toolResult: { toolUseId: 'tu-0', content: [{ text: 'rain' }] } }, { text: 'And Oslo?' }],
        },
      ],
      inferenceConfig: { maxTokens: 300, temperature: 0.2 },
      toolConfig: {
        tools: [
          { toolSpec: { name: 'get_weather', description: undefined, inputSchema: { json: { type: 'object' } } } },
        ],
        toolChoice: { auto: {} },
      },
    });
    expect(answer).toEqual({
      content: 'Checking.',
      toolCalls: [{ id: 'tu-1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      finishReason: 'tool_calls',
      usage: { promptTokens: 42, completionTokens: 7 },
    });
  });

  it('a throttle is retryable (the gateway falls back); a validation error is not', async () => {
    bedrock
      .on(ConverseCommand)
      .rejectsOnce(new ThrottlingException({ message: 'slow down', $metadata: { httpStatusCode: 429 } }));
    const throttled = await provider
      .chat({ model: model(CLAUDE), messages: [{ role: 'user', content: 'x' }], maxTokens: 5 })
      .catch((e) => e);
    expect(throttled).toBeInstanceOf(ProviderError);
    expect(throttled.retryable).toBe(true);
    bedrock.reset();
    bedrock
      .on(ConverseCommand)
      .rejects(new ValidationException({ message: 'bad', $metadata: { httpStatusCode: 400 } }));
    const refused = await provider
      .chat({ model: model(CLAUDE), messages: [{ role: 'user', content: 'x' }], maxTokens: 5 })
      .catch((e) => e);
    expect(refused.retryable).toBe(false);
    expect(refused.message).not.toContain('bad');
  });
});

describe('Bedrock ConverseStream (aws-sdk-client-mock)', () => {
  it('yields text deltas as they come, a tool call once its input is complete, then the usage', async () => {
    async function* events() {
      yield { messageStart: { role: 'assistant' as const } };
      yield { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Hel' } } };
      yield { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'lo' } } };
      yield { contentBlockStop: { contentBlockIndex: 0 } };
      yield {
        contentBlockStart: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tu-9', name: 'get_weather' } } },
      };
      yield { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } } };
      yield { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '"Oslo"}' } } } };
      yield { contentBlockStop: { contentBlockIndex: 1 } };
      yield { messageStop: { stopReason: 'tool_use' as const } };
      yield { metadata: { usage: { inputTokens: 11, outputTokens: 9, totalTokens: 20 }, metrics: { latencyMs: 5 } } };
    }
    bedrock.on(ConverseStreamCommand).resolves({ stream: events() });
    const seen: ProviderEvent[] = [];
    for await (const e of provider.stream({
      model: model(CLAUDE),
      messages: [{ role: 'user', content: 'hi' }],
      tools,
      maxTokens: 50,
    }))
      seen.push(e);
    expect(seen).toEqual([
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo' },
      {
        type: 'tool_call',
        index: 0,
        call: { id: 'tu-9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      },
      { type: 'done', finishReason: 'tool_calls', usage: { promptTokens: 11, completionTokens: 9 } },
    ]);
  });

  it('a stream that fails before its first event is retryable', async () => {
    bedrock
      .on(ConverseStreamCommand)
      .rejects(new ThrottlingException({ message: 'x', $metadata: { httpStatusCode: 429 } }));
    const it = provider
      .stream({ model: model(CLAUDE), messages: [{ role: 'user', content: 'hi' }], maxTokens: 50 })
      [Symbol.asyncIterator]();
    const failure = await it.next().catch((e) => e);
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure.retryable).toBe(true);
  });
});

describe('Bedrock embeddings (InvokeModel)', () => {
  it('embeds each input with a Titan body and sums the token counts', async () => {
    const TITAN = 'amazon.titan-embed-text-v2:0';
    bedrock.on(InvokeModelCommand).callsFake(async (input: { body: string }) => {
      const { inputText } = JSON.parse(input.body) as { inputText: string };
      return {
        body: new TextEncoder().encode(JSON.stringify({ embedding: [inputText.length, 0.5], inputTextTokenCount: 3 })),
        contentType: 'application/json',
      };
    });
    const out = await provider.embed(model(TITAN, 'embedding'), ['ab', 'abcd']);
    expect(out).toEqual({
      vectors: [
        [2, 0.5],
        [4, 0.5],
      ],
      promptTokens: 6,
    });
    expect(bedrock.commandCalls(InvokeModelCommand)[0]!.args[0].input).toMatchObject({
      modelId: TITAN,
      body: JSON.stringify({ inputText: 'ab' }),
    });
  });
});

describe('Bedrock rerank (InvokeModel)', () => {
  const answer = {
    results: [
      { index: 1, relevance_score: 0.9 },
      { index: 0, relevance_score: 0.2 },
    ],
  };
  beforeEach(() => {
    bedrock.on(InvokeModelCommand).callsFake(async () => ({
      body: new TextEncoder().encode(JSON.stringify(answer)),
      contentType: 'application/json',
    }));
  });

  it("sends Cohere's body (api_version 2) and maps the results back, best first", async () => {
    const out = await provider.rerank(model('cohere.rerank-v3-5:0', 'rerank'), 'q', ['a', 'b'], 2);
    expect(out.ranked).toEqual([
      { index: 1, score: 0.9 },
      { index: 0, score: 0.2 },
    ]);
    // Bedrock reports no token count for a rerank: the gateway meters its own.
    expect(out.promptTokens).toBeUndefined();
    expect(JSON.parse(bedrock.commandCalls(InvokeModelCommand)[0]!.args[0].input.body as string)).toEqual({
      query: 'q',
      documents: ['a', 'b'],
      top_n: 2,
      api_version: 2,
    });
  });

  it("sends Amazon Rerank's body without api_version", async () => {
    await provider.rerank(model('amazon.rerank-v1:0', 'rerank'), 'q', ['a', 'b'], 1);
    expect(JSON.parse(bedrock.commandCalls(InvokeModelCommand)[0]!.args[0].input.body as string)).toEqual({
      query: 'q',
      documents: ['a', 'b'],
      top_n: 1,
    });
  });

  it('throttled, is a retryable provider error (the fallbacks answer)', async () => {
    bedrock.on(InvokeModelCommand).rejects(new ThrottlingException({ message: 'slow down', $metadata: {} }));
    const err = await provider.rerank(model('cohere.rerank-v3-5:0', 'rerank'), 'q', ['a'], 1).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.retryable).toBe(true);
  });
});

describe('Bedrock structured outputs (aws-sdk-client-mock)', () => {
  const SONNET_45 = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
  const NOVA = 'amazon.nova-lite-v1:0';
  const schema = {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  };
  const shape = { type: 'json_schema' as const, name: 'place', schema, strict: true };
  const ask = (modelId: string, extra: Record<string, unknown> = {}) => ({
    model: model(modelId),
    messages: [{ role: 'user' as const, content: 'Where?' }],
    maxTokens: 100,
    responseFormat: shape,
    ...extra,
  });
  const answerTool = {
    toolSpec: {
      name: 'place',
      description: 'Give your answer by calling this tool: its input is the answer, in the shape asked for.',
      inputSchema: { json: schema },
    },
  };
  const usage = { inputTokens: 5, outputTokens: 3, totalTokens: 8 };

  it('gives the schema to a model that takes it as outputConfig.textFormat, its text the answer', async () => {
    bedrock.on(ConverseCommand).resolves({
      output: { message: { role: 'assistant', content: [{ text: '{"city":"Oslo"}' }] } },
      stopReason: 'end_turn',
      usage,
    });
    const answer = await provider.chat(ask(SONNET_45));
    expect(bedrock.commandCalls(ConverseCommand)[0]!.args[0].input).toEqual({
      modelId: SONNET_45,
      messages: [{ role: 'user', content: [{ text: 'Where?' }] }],
      inferenceConfig: { maxTokens: 100 },
      outputConfig: {
        textFormat: {
          type: 'json_schema',
          structure: { jsonSchema: { schema: JSON.stringify(schema), name: 'place' } },
        },
      },
    });
    expect(answer).toMatchObject({ content: '{"city":"Oslo"}', toolCalls: [], finishReason: 'stop' });
  });

  it('forces a tool whose input schema is the schema on other models, and answers with its input', async () => {
    bedrock.on(ConverseCommand).resolves({
      output: {
        message: {
          role: 'assistant',
          content: [{ text: 'Here it is.' }, { toolUse: { toolUseId: 't1', name: 'place', input: { city: 'Oslo' } } }],
        },
      },
      stopReason: 'tool_use',
      usage,
    });
    const answer = await provider.chat(ask(NOVA));
    expect(bedrock.commandCalls(ConverseCommand)[0]!.args[0].input).toEqual({
      modelId: NOVA,
      messages: [{ role: 'user', content: [{ text: 'Where?' }] }],
      inferenceConfig: { maxTokens: 100 },
      toolConfig: { tools: [answerTool], toolChoice: { tool: { name: 'place' } } },
    });
    expect(answer).toEqual({
      content: '{"city":"Oslo"}',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 5, completionTokens: 3 },
    });
  });

  it("beside the caller's tools (auto) the model may call one of them or the answer tool; required needs no answer tool", async () => {
    bedrock.on(ConverseCommand).resolves({
      output: {
        message: {
          role: 'assistant',
          content: [{ toolUse: { toolUseId: 't2', name: 'get_weather', input: { city: 'Oslo' } } }],
        },
      },
      stopReason: 'tool_use',
      usage,
    });
    const called = await provider.chat(ask(NOVA, { tools, toolChoice: 'auto' }));
    const weatherTool = {
      toolSpec: { name: 'get_weather', description: undefined, inputSchema: { json: { type: 'object' } } },
    };
    expect(bedrock.commandCalls(ConverseCommand)[0]!.args[0].input.toolConfig).toEqual({
      tools: [weatherTool, answerTool],
      toolChoice: { any: {} },
    });
    expect(called).toMatchObject({ content: null, finishReason: 'tool_calls' });
    await provider.chat(ask(NOVA, { tools, toolChoice: 'required' }));
    expect(bedrock.commandCalls(ConverseCommand)[1]!.args[0].input.toolConfig).toEqual({
      tools: [weatherTool],
      toolChoice: { any: {} },
    });
  });

  it('JSON mode is a forced tool with an object schema on every model', async () => {
    bedrock.on(ConverseCommand).resolves({
      output: {
        message: {
          role: 'assistant',
          content: [{ toolUse: { toolUseId: 't3', name: 'json_object', input: { a: 1 } } }],
        },
      },
      stopReason: 'tool_use',
      usage,
    });
    const answer = await provider.chat(ask(SONNET_45, { responseFormat: { type: 'json_object' } }));
    expect(bedrock.commandCalls(ConverseCommand)[0]!.args[0].input.toolConfig).toEqual({
      tools: [{ toolSpec: { ...answerTool.toolSpec, name: 'json_object', inputSchema: { json: { type: 'object' } } } }],
      toolChoice: { tool: { name: 'json_object' } },
    });
    expect(answer.content).toBe('{"a":1}');
  });

  it('refuses what it cannot carry (a non-object schema as a tool input, a refused schema) as a format it cannot honour', async () => {
    const root = await provider
      .chat(ask(NOVA, { responseFormat: { ...shape, schema: { type: 'array', items: { type: 'string' } } } }))
      .catch((e) => e);
    expect(root).toBeInstanceOf(FormatUnsupported);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
    bedrock
      .on(ConverseCommand)
      .rejects(new ValidationException({ message: 'bad schema', $metadata: { httpStatusCode: 400 } }));
    const refused = await provider.chat(ask(SONNET_45)).catch((e) => e);
    expect(refused).toBeInstanceOf(FormatUnsupported);
    expect(refused.message).not.toContain('bad schema');
  });

  it("streams the answer tool's input as the text, holding back the model's other words", async () => {
    async function* events() {
      yield { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Sure: ' } } };
      yield { contentBlockStart: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 't4', name: 'place' } } } };
      yield { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } } };
      yield { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '"Oslo"}' } } } };
      yield { contentBlockStop: { contentBlockIndex: 1 } };
      yield { messageStop: { stopReason: 'tool_use' as const } };
      yield { metadata: { usage, metrics: { latencyMs: 5 } } };
    }
    bedrock.on(ConverseStreamCommand).resolves({ stream: events() });
    const seen: ProviderEvent[] = [];
    for await (const e of provider.stream(ask(NOVA))) seen.push(e);
    expect(bedrock.commandCalls(ConverseStreamCommand)[0]!.args[0].input.toolConfig).toEqual({
      tools: [answerTool],
      toolChoice: { tool: { name: 'place' } },
    });
    expect(seen).toEqual([
      { type: 'text', text: '{"city":' },
      { type: 'text', text: '"Oslo"}' },
      { type: 'done', finishReason: 'stop', usage: { promptTokens: 5, completionTokens: 3 } },
    ]);
  });
});
