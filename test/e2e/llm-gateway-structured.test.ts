import { createOpenAI } from '@ai-sdk/openai';
import { Agent, OpenAIProvider, Runner, setTracingDisabled } from '@openai/agents';
import { generateObject, generateText, jsonSchema, Output, streamObject, tool } from 'ai';
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { adminMadeTenant, e2e, send } from '#test/support/e2e.ts';

/**
 * What OpenAI clients send beyond plain text, against the local server over real HTTP: shapes
 * (`response_format`, `text.format`) through each client's own structured-output helper, and forced
 * tool choices. The local model answers them deterministically (docs/try/llm-gateway.md).
 */
let secret: string;
const baseURL = () => `${e2e().baseUrl}/api/llm-gateway/v1`;
const client = () => new OpenAI({ apiKey: secret, baseURL: baseURL(), maxRetries: 0 });

// The Agents SDK exports traces to OpenAI by default: nothing may leave this machine.
setTracingDisabled(true);

const Person = z.object({ name: z.string(), mood: z.enum(['happy', 'sad']), age: z.number().int() });

beforeAll(async () => {
  const { owner } = await adminMadeTenant({
    slugPrefix: 'shapes',
    name: 'Shapes Client Co',
    planType: 2,
    maxAgents: 1,
    maxKnowledgeBases: 1,
  });
  const key = await send('POST', '/api/llm-gateway/keys', { token: owner, body: { name: 'shapes' } });
  expect(key).toAnswer(201);
  secret = key.json.result.key;
});

describe('the official openai client', () => {
  it('chat.completions.parse with zodResponseFormat gets a parsed object', async () => {
    const c = await client().chat.completions.parse({
      model: 'local-chat',
      messages: [{ role: 'user', content: 'Ada {"age":36}' }],
      response_format: zodResponseFormat(Person, 'person'),
    });
    expect(c.choices[0]!.message.parsed).toEqual({ name: 'Ada {"age":36}', mood: 'happy', age: 36 });
  });

  it('responses.parse with zodTextFormat gets output_parsed', async () => {
    const r = await client().responses.parse({
      model: 'local-chat',
      input: 'Grace',
      text: { format: zodTextFormat(Person, 'person') },
    });
    expect(r.output_parsed).toEqual({ name: 'Grace', mood: 'happy', age: 0 });
    expect(r.text?.format).toMatchObject({ type: 'json_schema', name: 'person', strict: true });
  });

  it('streams structured output: the JSON arrives in pieces and the final completion is parsed', async () => {
    const stream = client().chat.completions.stream({
      model: 'local-chat',
      messages: [{ role: 'user', content: 'Linus' }],
      response_format: zodResponseFormat(Person, 'person'),
    });
    const pieces: string[] = [];
    stream.on('content.delta', ({ delta }) => pieces.push(delta));
    const final = await stream.finalChatCompletion();
    expect(pieces.length).toBeGreaterThan(1);
    expect(final.choices[0]!.message.parsed).toEqual({ name: 'Linus', mood: 'happy', age: 0 });
  });

  it('a shape the model cannot follow is a 400 naming response_format, not plain text', async () => {
    const err = await client()
      .chat.completions.parse({
        model: 'local-chat',
        messages: [{ role: 'user', content: 'zip?' }],
        response_format: zodResponseFormat(z.object({ zip: z.string().regex(/^[0-9]{5}$/) }), 'zip'),
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({ code: 'unsupported_response_format', param: 'response_format' });
  });
});

describe('the Vercel AI SDK', () => {
  const model = () => createOpenAI({ baseURL: baseURL(), apiKey: secret })('local-chat');

  it('generateObject', async () => {
    const r = await generateObject({ model: model(), schema: Person, prompt: 'Ada', maxRetries: 0 });
    expect(r.object).toEqual({ name: 'Ada', mood: 'happy', age: 0 });
  });

  it('generateText with Output.object', async () => {
    const r = await generateText({
      model: model(),
      output: Output.object({ schema: Person }),
      prompt: 'Ada {"mood":"sad"}',
      maxRetries: 0,
    });
    expect(r.output).toEqual({ name: 'Ada {"mood":"sad"}', mood: 'sad', age: 0 });
  });

  it('streamObject: partial objects, then the whole', async () => {
    const r = streamObject({ model: model(), schema: Person, prompt: 'Grace', maxRetries: 0 });
    const partials: unknown[] = [];
    for await (const p of r.partialObjectStream) partials.push(p);
    expect(partials.length).toBeGreaterThan(1);
    expect(await r.object).toEqual({ name: 'Grace', mood: 'happy', age: 0 });
  });

  it("toolChoice: 'required' calls the best-matching tool, with arguments valid against its input schema", async () => {
    const r = await generateText({
      model: model(),
      prompt: 'What is the weather in Oslo?',
      tools: {
        lookup_order: tool({ inputSchema: z.object({ id: z.string() }) }),
        get_weather: tool({
          inputSchema: jsonSchema<{ city: string; days: number }>({
            type: 'object',
            properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
            required: ['city', 'days'],
            additionalProperties: false,
          }),
        }),
      },
      toolChoice: 'required',
      maxRetries: 0,
    });
    expect(r.toolCalls).toEqual([
      expect.objectContaining({ toolName: 'get_weather', input: { city: 'What is the weather in Oslo?', days: 1 } }),
    ]);
  });
});

describe('the OpenAI Agents SDK', () => {
  it("an agent's outputType is its final output, parsed", async () => {
    const runner = new Runner({
      modelProvider: new OpenAIProvider({ openAIClient: client(), useResponses: true }),
      tracingDisabled: true,
    });
    const agent = new Agent({
      name: 'Sorter',
      instructions: 'Say who and how they feel.',
      model: 'local-chat',
      outputType: Person,
    });
    const result = await runner.run(agent, 'Ada {"age":36}');
    expect(result.finalOutput).toEqual({ name: 'Ada {"age":36}', mood: 'happy', age: 36 });
  });
});
