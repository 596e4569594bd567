import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localModel } from '#areas/llm-gateway/providers/local-model.ts';
import type { ChatMessage } from '#areas/llm-gateway/providers/port.ts';
import type { CatalogModel } from '#areas/llm-gateway/records.ts';
import { ip } from './gateway.ts';
import { invoke } from './invoke.ts';
import { tokenFor } from './tokens.ts';

/**
 * The local model served over HTTP as an OpenAI-compatible server (`/v1/chat/completions` plain and
 * streamed, `/v1/embeddings`, and the Cohere-style `/v1/rerank`), for testing the gateway's OpenAI-compatible provider end to end.
 * It checks the bearer key, records what it was sent, and can be told to fail with a status.
 */
export interface FakeOpenAi {
  baseUrl: string;
  requests: { path: string; authorization: string | undefined; body: Record<string, unknown> }[];
  failWith: number | null;
  close(): Promise<void>;
}

const asModel = (name: string): CatalogModel => ({
  id: name,
  name,
  provider: 'local',
  providerModel: name === 'flaky' ? 'flaky' : 'echo',
  kind: 'chat',
  inputPricePerMillion: 0,
  outputPricePerMillion: 0,
  contextWindow: 1_000_000,
  fallbackModelIds: [],
  isActive: true,
  createdAt: '',
  updatedAt: '',
});

const read = async (req: IncomingMessage) => {
  let text = '';
  for await (const chunk of req) text += chunk;
  return JSON.parse(text || '{}') as Record<string, unknown>;
};

export async function startOpenAiServer(apiKey: string): Promise<FakeOpenAi> {
  const state: FakeOpenAi = { baseUrl: '', requests: [], failWith: null, close: async () => undefined };
  const server = createServer(async (req, res) => {
    const body = await read(req);
    state.requests.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"bad key"}}');
      return;
    }
    if (state.failWith) {
      res.writeHead(state.failWith, { 'content-type': 'application/json' }).end('{"error":{"message":"down"}}');
      return;
    }
    if (req.url === '/v1/embeddings') {
      const out = await localModel.embed(asModel('embed'), body.input as string[]);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          data: out.vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
          usage: { prompt_tokens: out.promptTokens, total_tokens: out.promptTokens },
        }),
      );
      return;
    }
    if (req.url === '/v1/rerank') {
      const out = await localModel.rerank(
        asModel('rerank'),
        String(body.query),
        body.documents as string[],
        Number(body.top_n),
      );
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          results: out.ranked.map((r) => ({ index: r.index, relevance_score: r.score })),
          // A count of its own (7 a document), so a test tells it from the gateway's.
          usage: { total_tokens: 7 * (body.documents as string[]).length },
        }),
      );
      return;
    }
    const request = {
      model: asModel(String(body.model)),
      messages: body.messages as ChatMessage[],
      tools: body.tools as never,
      maxTokens: Number(body.max_tokens ?? 1000),
    };
    if (!body.stream) {
      const a = await localModel.chat(request);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          model: body.model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: a.content,
                ...(a.toolCalls.length ? { tool_calls: a.toolCalls } : {}),
              },
              finish_reason: a.finishReason,
            },
          ],
          usage: { prompt_tokens: a.usage.promptTokens, completion_tokens: a.usage.completionTokens },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (v: unknown) => res.write(`data: ${JSON.stringify(v)}\n\n`);
    for await (const e of localModel.stream(request)) {
      if (e.type === 'text') send({ choices: [{ index: 0, delta: { content: e.text } }] });
      if (e.type === 'tool_call') {
        // Split as real servers do: name first, then the arguments in two pieces.
        const { id, function: f } = e.call;
        const half = Math.floor(f.arguments.length / 2);
        send({
          choices: [
            {
              index: 0,
              delta: {
                tool_calls: [{ index: e.index, id, type: 'function', function: { name: f.name, arguments: '' } }],
              },
            },
          ],
        });
        send({
          choices: [
            {
              index: 0,
              delta: { tool_calls: [{ index: e.index, function: { arguments: f.arguments.slice(0, half) } }] },
            },
          ],
        });
        send({
          choices: [
            { index: 0, delta: { tool_calls: [{ index: e.index, function: { arguments: f.arguments.slice(half) } }] } },
          ],
        });
      }
      if (e.type === 'done') {
        send({ choices: [{ index: 0, delta: {}, finish_reason: e.finishReason }] });
        send({
          choices: [],
          usage: { prompt_tokens: e.usage.promptTokens, completion_tokens: e.usage.completionTokens },
        });
      }
    }
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}

/**
 * A catalog model served by this server, put by a SystemAdmin: the answer of the PUT. Unless
 * `fields` says otherwise: $0.01 per million input tokens, nothing for output, a 4,000-token window.
 */
export async function putServedModel(
  server: FakeOpenAi,
  fields: { name: string; kind: string; providerModel: string; apiKeySecret: string } & Record<string, unknown>,
  id: string = crypto.randomUUID(),
) {
  return invoke('PUT', `/api/llm-gateway/models/${id}`, {
    token: await tokenFor({ role: 'SystemAdmin' }),
    ip: ip(),
    body: {
      provider: 'openai-compatible',
      inputPricePerMillion: 0.01,
      outputPricePerMillion: 0,
      contextWindow: 4000,
      baseUrl: server.baseUrl,
      ...fields,
    },
  });
}
