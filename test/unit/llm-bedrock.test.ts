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
import { ProviderError, type ProviderEvent } from '#areas/llm-gateway/providers/port.ts';
import type { CatalogModel } from '#areas/llm-gateway/records.ts';

process.env.AWS_REGION ??= 'us-east-1';

const model = (providerModel: string, kind: 'chat' | 'embedding' = 'chat'): CatalogModel => ({
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
