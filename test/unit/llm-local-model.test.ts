import { describe, expect, it } from 'vitest';
import { LOCAL_MODELS } from '#areas/llm-gateway/catalog.ts';
import { localModel } from '#areas/llm-gateway/providers/local-model.ts';
import { ProviderError, type ChatMessage, type ProviderRequest } from '#areas/llm-gateway/providers/port.ts';
import { promptTokens } from '#areas/llm-gateway/prompt-tokens.ts';
import type { CatalogModel } from '#areas/llm-gateway/records.ts';
import { countTokens } from '#areas/llm-gateway/tokens.ts';

/** The local model's documented rules (docs/try/llm-gateway.md, "What the local model answers"): what a person can predict. */
const model = (name: string): CatalogModel => {
  const { id, ...m } = LOCAL_MODELS.find((x) => x.name === name)!;
  return { id, ...m, createdAt: '', updatedAt: '' };
};
const ask = (messages: ChatMessage[], extra: Partial<ProviderRequest> = {}): ProviderRequest => ({
  model: model('local-chat'),
  messages,
  maxTokens: 1000,
  ...extra,
});
const tools = [{ type: 'function' as const, function: { name: 'get_weather' } }];

describe('the local model', () => {
  it('echoes the last user message, with usage from the tokenizer', async () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be nice.' },
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'You said: first' },
      { role: 'user', content: 'second' },
    ];
    const a = await localModel.chat(ask(messages));
    expect(a).toEqual({
      content: 'You said: second',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: await promptTokens(messages), completionTokens: await countTokens('You said: second') },
    });
  });

  it('calls the first offered tool the message names, with its JSON object as arguments', async () => {
    const a = await localModel.chat(
      ask([{ role: 'user', content: 'please get_weather for {"city": "Oslo", "days": 2}' }], { tools }),
    );
    expect(a.finishReason).toBe('tool_calls');
    expect(a.content).toBeNull();
    expect(a.toolCalls).toEqual([
      {
        id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Oslo","days":2}' },
      },
    ]);
    // Not without a JSON object, not when the name is only part of a word, not with tool_choice none.
    for (const [content, extra] of [
      ['get_weather please', {}],
      ['get_weathers {"a":1}', {}],
      ['get_weather {"a":1}', { toolChoice: 'none' as const }],
    ] as const) {
      expect((await localModel.chat(ask([{ role: 'user', content }], { tools, ...extra }))).finishReason).toBe('stop');
    }
  });

  it('answers from a tool result, naming the tool of the call it answers', async () => {
    const a = await localModel.chat(
      ask([
        { role: 'user', content: 'get_weather {"city":"Oslo"}' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
      ]),
    );
    expect(a.content).toBe('The tool get_weather returned: sunny');
  });

  it('cuts at max_tokens (finish_reason length) and streams word by word to the same text and usage', async () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'one two three four five six' }];
    const cut = await localModel.chat(ask(messages, { maxTokens: 4 }));
    expect(cut.finishReason).toBe('length');
    expect(cut.usage.completionTokens).toBe(4);
    const whole = await localModel.chat(ask(messages));
    const words: string[] = [];
    let done: unknown;
    for await (const e of localModel.stream(ask(messages))) {
      if (e.type === 'text') words.push(e.text);
      if (e.type === 'done') done = e;
    }
    expect(words).toEqual(['You', ' said:', ' one', ' two', ' three', ' four', ' five', ' six']);
    expect(words.join('')).toBe(whole.content);
    expect(done).toEqual({ type: 'done', finishReason: 'stop', usage: whole.usage });
  });

  it('local-flaky always fails with a retryable 503', async () => {
    const failure = await localModel
      .chat(ask([{ role: 'user', content: 'hi' }], { model: model('local-flaky') }))
      .catch((e) => e);
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure).toMatchObject({ status: 503, retryable: true });
  });
});

describe('the local model: forced tool choices and shapes', () => {
  const offered = [
    {
      type: 'function' as const,
      function: {
        name: 'lookup_order',
        parameters: {
          type: 'object',
          properties: { id: { type: 'string' } },
          required: ['id'],
          additionalProperties: false,
        },
      },
    },
    {
      type: 'function' as const,
      function: {
        name: 'get_weather',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
          required: ['city', 'days'],
          additionalProperties: false,
        },
      },
    },
  ];
  const argsOf = (a: { toolCalls: { function: { name: string; arguments: string } }[] }) => ({
    name: a.toolCalls[0]?.function.name,
    args: JSON.parse(a.toolCalls[0]?.function.arguments ?? 'null'),
  });

  it("'required' calls the best-matching tool with arguments valid against its parameters, the first when none matches", async () => {
    const weather = await localModel.chat(
      ask([{ role: 'user', content: 'What is the weather like in Oslo?' }], { tools: offered, toolChoice: 'required' }),
    );
    expect(weather.finishReason).toBe('tool_calls');
    expect(argsOf(weather)).toEqual({
      name: 'get_weather',
      args: { city: 'What is the weather like in Oslo?', days: 1 },
    });
    const hinted = await localModel.chat(
      ask([{ role: 'user', content: 'get_weather {"city":"Oslo","days":3}' }], {
        tools: offered,
        toolChoice: 'required',
      }),
    );
    expect(argsOf(hinted)).toEqual({ name: 'get_weather', args: { city: 'Oslo', days: 3 } });
    const none = await localModel.chat(
      ask([{ role: 'user', content: 'hello' }], { tools: offered, toolChoice: 'required' }),
    );
    expect(argsOf(none)).toEqual({ name: 'lookup_order', args: { id: 'hello' } });
  });

  it('a named function is called even when the message names another; none never calls one', async () => {
    const named = await localModel.chat(
      ask([{ role: 'user', content: 'get_weather {"city":"Oslo","id":"A-1"}' }], {
        tools: offered,
        toolChoice: { type: 'function', function: { name: 'lookup_order' } },
      }),
    );
    expect(argsOf(named)).toEqual({ name: 'lookup_order', args: { id: 'A-1' } });
    const never = await localModel.chat(
      ask([{ role: 'user', content: 'get_weather {"city":"Oslo","days":2}' }], { tools: offered, toolChoice: 'none' }),
    );
    expect(never.toolCalls).toEqual([]);
    expect(never.content).toBe('You said: get_weather {"city":"Oslo","days":2}');
  });

  it('answers a JSON Schema with JSON valid against it, and JSON mode with {"reply": ...}', async () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        mood: { type: 'string', enum: ['happy', 'sad'] },
        age: { type: 'integer' },
      },
      required: ['name', 'mood', 'age'],
      additionalProperties: false,
    };
    const shaped = await localModel.chat(
      ask([{ role: 'user', content: 'Ada is 36 {"age":36}' }], {
        responseFormat: { type: 'json_schema', name: 'person', schema, strict: true },
      }),
    );
    expect(JSON.parse(shaped.content!)).toEqual({ name: 'Ada is 36 {"age":36}', mood: 'happy', age: 36 });
    const json = await localModel.chat(
      ask([{ role: 'user', content: 'hi' }], { responseFormat: { type: 'json_object' } }),
    );
    expect(JSON.parse(json.content!)).toEqual({ reply: 'You said: hi' });
    const pieces: string[] = [];
    for await (const e of localModel.stream(
      ask([{ role: 'user', content: 'Ada' }], {
        responseFormat: { type: 'json_schema', name: 'p', schema, strict: true },
      }),
    ))
      if (e.type === 'text') pieces.push(e.text);
    expect(pieces).toEqual(['{"name":"Ada",', '"mood":"happy",', '"age":0}']);
  });
});
