import { afterEach, describe, expect, it, vi } from 'vitest';
import { openAiCompatibleProvider } from '#areas/llm-gateway/providers/openai-compatible.ts';
import { readSecret } from '#areas/vault/for-llm-gateway.ts';
import { FormatUnsupported, ProviderError, type ProviderEvent } from '#areas/llm-gateway/providers/port.ts';
import type { CatalogModel } from '#areas/llm-gateway/records.ts';

const model: CatalogModel = {
  id: 'm-1',
  name: 'self-hosted',
  provider: 'openai-compatible',
  providerModel: 'llama',
  kind: 'chat',
  inputPricePerMillion: 0,
  outputPricePerMillion: 0,
  contextWindow: 8192,
  fallbackModelIds: [],
  isActive: true,
  baseUrl: 'http://upstream.test/v1',
  apiKeySecret: null,
  createdAt: '',
  updatedAt: '',
};

/** An upstream that answers with these byte chunks, exactly as split here. */
function upstream(chunks: (string | Uint8Array)[]) {
  const fetch = vi.fn(
    async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            for (const chunk of chunks) c.enqueue(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
            c.close();
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      ),
  );
  vi.stubGlobal('fetch', fetch);
}

async function streamed() {
  const events: ProviderEvent[] = [];
  const req = { model, messages: [{ role: 'user' as const, content: 'Hi' }], maxTokens: 16 };
  for await (const e of openAiCompatibleProvider(readSecret).stream(req)) events.push(e);
  return events;
}

const delta = (d: object) => JSON.stringify({ choices: [{ delta: d }] });
const usage = { prompt_tokens: 3, completion_tokens: 2 };

afterEach(() => vi.unstubAllGlobals());

describe('OpenAI-compatible streams (server-sent events)', () => {
  it('reads events split anywhere across chunks, with CRLF line ends and comments', async () => {
    const euro = new TextEncoder().encode(`data: ${delta({ content: ' 5€' })}\r\n\r\n`);
    const cut = euro.indexOf(0x82); // inside the three bytes of the euro sign
    upstream([
      ': keep-alive\r\n\r\ndata: {"choices":[{"delta":{"content":"Hel',
      `lo"}}]}\r\n\r\nda`,
      `ta: ${delta({ content: ' world' })}\r`,
      '\n\r\n:another comment\r\n',
      euro.subarray(0, cut),
      euro.subarray(cut),
      `data: ${delta({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'f', arguments: '{"a"' } }] })}\r\n\r\n`,
      `data: ${delta({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] })}\r\n\r`,
      `\ndata: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: 'tool_calls' }], usage })}\r\n\r\n`,
      'data: [DONE]\r\n\r\ndata: {not json, never read',
    ]);
    expect(await streamed()).toEqual([
      { type: 'text', text: 'Hello' },
      { type: 'text', text: ' world' },
      { type: 'text', text: ' 5€' },
      {
        type: 'tool_call',
        index: 0,
        call: { id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
      },
      { type: 'done', finishReason: 'tool_calls', usage: { promptTokens: 3, completionTokens: 2 } },
    ]);
  });

  it('counts a last event that the stream ends without its blank line', async () => {
    upstream([
      `data: ${delta({ content: 'Hi' })}\n\n`,
      `data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: 'length' }], usage })}`,
    ]);
    expect(await streamed()).toEqual([
      { type: 'text', text: 'Hi' },
      { type: 'done', finishReason: 'length', usage: { promptTokens: 3, completionTokens: 2 } },
    ]);
  });
});

describe('OpenAI-compatible response formats', () => {
  const shape = {
    type: 'json_schema' as const,
    name: 'place',
    description: 'Where',
    schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: true,
  };
  const ask = { model, messages: [{ role: 'user' as const, content: 'Hi' }], maxTokens: 16, responseFormat: shape };

  it('sends response_format as OpenAI spells it', async () => {
    const fetch = vi.fn(async (_url: string, _init: RequestInit) =>
      Response.json({ choices: [{ message: { content: '{"city":"Oslo"}' }, finish_reason: 'stop' }], usage }),
    );
    vi.stubGlobal('fetch', fetch);
    const answer = await openAiCompatibleProvider(readSecret).chat(ask);
    expect(JSON.parse(String(fetch.mock.calls[0]![1].body)).response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'place', description: 'Where', schema: shape.schema, strict: true },
    });
    expect(answer.content).toBe('{"city":"Oslo"}');
  });

  it('an endpoint that refuses the response_format refuses the shape; another 400 stays a provider failure', async () => {
    const refusing = (error: object) =>
      vi.stubGlobal(
        'fetch',
        vi.fn(async () => Response.json({ error }, { status: 400 })),
      );
    refusing({
      message: "Invalid schema for response_format 'place'",
      param: 'response_format',
      type: 'invalid_request_error',
    });
    const shaped = await openAiCompatibleProvider(readSecret)
      .chat(ask)
      .catch((e) => e);
    expect(shaped).toBeInstanceOf(FormatUnsupported);
    expect(shaped.message).not.toContain('Invalid schema');
    refusing({ message: 'messages too long', param: 'messages' });
    const other = await openAiCompatibleProvider(readSecret)
      .chat(ask)
      .catch((e) => e);
    expect(other).toBeInstanceOf(ProviderError);
  });
});
