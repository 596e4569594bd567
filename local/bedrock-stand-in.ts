import type { ServerResponse } from 'node:http';
import { createServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { BEDROCK_MODELS } from '#areas/llm-gateway/bedrock-models.ts';
import { localModel } from '#areas/llm-gateway/providers/local-model.ts';
import type { ChatMessage, ProviderRequest, ToolDef } from '#areas/llm-gateway/providers/port.ts';
import type { CatalogModel } from '#areas/llm-gateway/records.ts';

type Block = {
  text?: string;
  toolUse?: { toolUseId: string; name: string; input: unknown };
  toolResult?: { toolUseId: string; content?: { text?: string; json?: unknown }[] };
};
interface ConverseBody {
  messages?: { role: 'user' | 'assistant'; content: Block[] }[];
  system?: { text?: string }[];
  inferenceConfig?: { maxTokens?: number; temperature?: number };
  toolConfig?: {
    tools?: { toolSpec?: { name: string; description?: string; inputSchema?: { json?: Record<string, unknown> } } }[];
    toolChoice?: { auto?: object; any?: object; tool?: { name: string } };
  };
}

/** Bedrock's Converse shapes back into the OpenAI messages the local model reads. */
function providerRequest(modelId: string, body: ConverseBody): ProviderRequest {
  const messages: ChatMessage[] = (body.system ?? []).map((s) => ({ role: 'system' as const, content: s.text ?? '' }));
  for (const m of body.messages ?? []) {
    if (m.role === 'assistant') {
      const text = m.content.flatMap((b) => (b.text !== undefined ? [b.text] : [])).join('');
      const calls = m.content.flatMap((b) =>
        b.toolUse
          ? [
              {
                id: b.toolUse.toolUseId,
                type: 'function' as const,
                function: { name: b.toolUse.name, arguments: JSON.stringify(b.toolUse.input ?? {}) },
              },
            ]
          : [],
      );
      messages.push({ role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) });
      continue;
    }
    for (const b of m.content) {
      if (b.toolResult)
        messages.push({
          role: 'tool',
          tool_call_id: b.toolResult.toolUseId,
          content: (b.toolResult.content ?? []).map((c) => c.text ?? JSON.stringify(c.json)).join(''),
        });
      else if (b.text !== undefined) messages.push({ role: 'user', content: b.text });
    }
  }
  const tools: ToolDef[] = (body.toolConfig?.tools ?? []).flatMap((t) =>
    t.toolSpec
      ? [
          {
            type: 'function' as const,
            function: {
              name: t.toolSpec.name,
              description: t.toolSpec.description,
              parameters: t.toolSpec.inputSchema?.json,
            },
          },
        ]
      : [],
  );
  const choice = body.toolConfig?.toolChoice;
  return {
    model: { name: modelId, providerModel: modelId, provider: 'bedrock' } as CatalogModel,
    messages,
    ...(tools.length ? { tools } : {}),
    toolChoice: choice?.any
      ? 'required'
      : choice?.tool
        ? { type: 'function', function: { name: choice.tool.name } }
        : 'auto',
    maxTokens: body.inferenceConfig?.maxTokens ?? 4096,
    ...(body.inferenceConfig?.temperature !== undefined ? { temperature: body.inferenceConfig.temperature } : {}),
  };
}

const STOP = { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens', content_filter: 'content_filtered' };

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => new Uint8Array(Buffer.from(text, 'utf8')),
);

/** One event of an `application/vnd.amazon.eventstream` answer, framed as Bedrock frames it. */
const frame = (eventType: string, payload: unknown) =>
  codec.encode({
    headers: {
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: new Uint8Array(Buffer.from(JSON.stringify(payload), 'utf8')),
  });

/** Node's HTTP/1 and HTTP/2 compatibility responses take the same calls used here. */
type Response = ServerResponse;

const error = (res: Response, status: number, type: string, message: string) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
  res.end(JSON.stringify({ message }));
};

/**
 * Amazon Bedrock Runtime as the SDK's client speaks it (over HTTP/2, which its client uses): Converse,
 * ConverseStream (its event-stream framing: messageStart, contentBlockStart/Delta/Stop, messageStop,
 * metadata) and InvokeModel for Titan-style embeddings. It answers as the local models do (the local
 * model's rules for chat, the hashing embedder for embeddings), for the model ids Bedrock offers the stack.
 */
export function bedrockHandler() {
  const known = new Map(BEDROCK_MODELS.map((m) => [m.bedrockId, m]));
  const calls: string[] = [];
  const handle = async (req: { url: string; body: Buffer }, res: Response): Promise<void> => {
    const [, rawModel = '', op = ''] = /^\/model\/([^/]+)\/([^/?]+)/.exec(req.url) ?? [];
    const modelId = decodeURIComponent(rawModel);
    const model = known.get(modelId);
    calls.push(`${op} ${modelId}`);
    if (!model) {
      error(res, 404, 'ResourceNotFoundException', `Model ${modelId} not found`);
      return;
    }
    const body = JSON.parse(req.body.toString('utf8') || '{}');
    try {
      if (op === 'invoke') {
        if (model.kind !== 'embedding')
          return void error(res, 400, 'ValidationException', 'Use Converse for chat models');
        const out = await localModel.embed({} as CatalogModel, [String(body.inputText ?? '')]);
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ embedding: out.vectors[0], inputTextTokenCount: out.promptTokens }));
      }
      if (model.kind !== 'chat')
        return void error(res, 400, 'ValidationException', `${modelId} does not support Converse`);
      const request = providerRequest(modelId, body as ConverseBody);
      if (op === 'converse') {
        const a = await localModel.chat(request);
        const content: Block[] = [
          ...(a.content ? [{ text: a.content }] : []),
          ...a.toolCalls.map((c) => ({
            toolUse: { toolUseId: c.id, name: c.function.name, input: JSON.parse(c.function.arguments) },
          })),
        ];
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(
          JSON.stringify({
            output: { message: { role: 'assistant', content } },
            stopReason: STOP[a.finishReason],
            usage: {
              inputTokens: a.usage.promptTokens,
              outputTokens: a.usage.completionTokens,
              totalTokens: a.usage.promptTokens + a.usage.completionTokens,
            },
            metrics: { latencyMs: 1 },
          }),
        );
      }
      if (op !== 'converse-stream') return void error(res, 404, 'UnknownOperationException', op);
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      res.write(frame('messageStart', { role: 'assistant' }));
      let index = 0;
      let textOpen = false;
      for await (const e of localModel.stream(request)) {
        if (e.type === 'text') {
          res.write(frame('contentBlockDelta', { contentBlockIndex: index, delta: { text: e.text } }));
          textOpen = true;
        } else if (e.type === 'tool_call') {
          if (textOpen) res.write(frame('contentBlockStop', { contentBlockIndex: index++ }));
          textOpen = false;
          const start = { toolUse: { toolUseId: e.call.id, name: e.call.function.name } };
          res.write(frame('contentBlockStart', { contentBlockIndex: index, start }));
          res.write(
            frame('contentBlockDelta', {
              contentBlockIndex: index,
              delta: { toolUse: { input: e.call.function.arguments } },
            }),
          );
          res.write(frame('contentBlockStop', { contentBlockIndex: index++ }));
        } else {
          if (textOpen) res.write(frame('contentBlockStop', { contentBlockIndex: index }));
          res.write(frame('messageStop', { stopReason: STOP[e.finishReason] }));
          const usage = {
            inputTokens: e.usage.promptTokens,
            outputTokens: e.usage.completionTokens,
            totalTokens: e.usage.promptTokens + e.usage.completionTokens,
          };
          res.write(frame('metadata', { usage, metrics: { latencyMs: 1 } }));
        }
      }
      res.end();
    } catch (err) {
      if (res.headersSent) return void res.end();
      error(res, 500, 'InternalServerException', String(err));
    }
  };
  return { handle, calls };
}

/** The stand-in on its own port (HTTP/2 without TLS, as the SDK's client connects to an http:// endpoint). */
export async function startBedrockStandIn(): Promise<{ endpoint: string; calls: string[]; close(): Promise<void> }> {
  const { handle, calls } = bedrockHandler();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    await handle({ url: req.url ?? '/', body: Buffer.concat(chunks) }, res as unknown as Response);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
