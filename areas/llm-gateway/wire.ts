import { reply, type RawReply, type StreamReply } from '#shared/http/responses.ts';
import { openAiError } from '#shared/http/openai-error.ts';
import { toApiError } from '#shared/runtime/middlewares/error-envelope.ts';
import { afterAnswer } from '#shared/runtime/after-answer.ts';
import { sseEvent } from '#shared/runtime/stream.ts';
import { keyAllows } from './admission.ts';
import { listModels, resolveModel } from './catalog.ts';
import { chat, chatStream, type ChatChunk, type ChatResult } from './chat.ts';
import { modelNotFound } from './errors.ts';
import { currentKey } from './gateway-keys.ts';
import { embed } from './embed.ts';
import type { ChatMessage, ToolCall, ToolChoice, ToolDef } from './providers/port.ts';
import type { Caller, CatalogModel } from './records.ts';
import { fromChatFormat, type WireChatFormat } from './response-format.ts';
import { decodeTokens } from './tokens.ts';
import { validationError } from '#shared/http/errors.ts';
import { GATEWAY_LIMITS } from './limits.ts';

/**
 * OpenAI's wire format around chat() and embed(): requests in, chat.completion,
 * chat.completion.chunk events and embedding lists out. Errors are written by the error middleware
 * (the route's errorFormat); a failure after a stream began is sent as an `error` event.
 */
type Part = { type: 'text'; text: string };
type WireContent = string | Part[] | null | undefined;
const flat = (c: WireContent) => (Array.isArray(c) ? c.map((p) => p.text).join('') : (c ?? ''));

export interface WireChatBody {
  model: string;
  messages: (
    | { role: 'system' | 'developer' | 'user'; content: WireContent }
    | { role: 'assistant'; content?: WireContent; tool_calls?: ToolCall[] }
    | { role: 'tool'; content: WireContent; tool_call_id: string }
  )[];
  temperature?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  tools?: ToolDef[];
  tool_choice?: ToolChoice;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  response_format?: WireChatFormat | null;
}

function toMessages(body: WireChatBody): ChatMessage[] {
  return body.messages.map((m): ChatMessage => {
    switch (m.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: flat(m.content) };
      case 'user':
        return { role: 'user', content: flat(m.content) };
      case 'assistant':
        return {
          role: 'assistant',
          content: m.content === null || m.content === undefined ? null : flat(m.content),
          ...(m.tool_calls?.length ? { tool_calls: m.tool_calls } : {}),
        };
      // The body schema admits no other role: what is left is a tool message.
      default:
        return { role: 'tool', content: flat(m.content), tool_call_id: m.tool_call_id };
    }
  });
}

/** Every `/v1` answer names its request (`x-request-id`), as OpenAI's do: what a caller quotes to support. */
const json = (requestId: string, value: unknown): RawReply =>
  reply.raw('application/json', JSON.stringify(value), { headers: { 'x-request-id': requestId } });
const seconds = () => Math.floor(Date.now() / 1000);

const completionId = (requestId: string) => `chatcmpl-${requestId}`;

const wireUsage = (u: ChatResult['usage']) => ({
  prompt_tokens: u.promptTokens,
  completion_tokens: u.completionTokens,
  total_tokens: u.totalTokens,
});

function toCompletion(requestId: string, r: ChatResult) {
  return {
    id: completionId(requestId),
    object: 'chat.completion',
    created: seconds(),
    model: r.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: r.message.content,
          refusal: null,
          ...(r.message.toolCalls.length ? { tool_calls: r.message.toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: r.finishReason,
      },
    ],
    usage: wireUsage(r.usage),
  };
}

interface ChatContext {
  tenantId: string;
  caller: Caller;
  requestId: string;
}

function callOf(ctx: ChatContext, body: WireChatBody) {
  return {
    ...ctx,
    model: body.model,
    messages: toMessages(body),
    tools: body.tools,
    toolChoice: body.tool_choice,
    temperature: body.temperature ?? undefined,
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    responseFormat: fromChatFormat(body.response_format),
    later: afterAnswer,
  };
}

/** Server-sent events of a started stream: each provider piece as a chunk, as it comes. */
async function* events(
  ctx: ChatContext,
  first: ChatChunk,
  rest: AsyncIterator<ChatChunk>,
  includeUsage: boolean,
): AsyncGenerator<string> {
  const id = completionId(ctx.requestId);
  const created = seconds();
  let model = first.type === 'start' ? first.model : '';
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sseEvent({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
  let current: ChatChunk | undefined = first;
  try {
    while (current) {
      switch (current.type) {
        case 'start':
          model = current.model;
          // The role alone: an empty `content` here reads as an empty text part before a tool call.
          yield chunk({ role: 'assistant' });
          break;
        case 'text':
          yield chunk({ content: current.text });
          break;
        case 'tool_call':
          yield chunk({
            tool_calls: [
              {
                index: current.index,
                id: current.call.id,
                type: 'function',
                function: current.call.function,
              },
            ],
          });
          break;
        case 'done':
          yield chunk({}, current.finishReason);
          if (includeUsage)
            yield sseEvent({
              id,
              object: 'chat.completion.chunk',
              created,
              model,
              choices: [],
              usage: wireUsage(current.usage),
            });
          yield sseEvent('[DONE]');
          return;
      }
      const next: IteratorResult<ChatChunk> = await rest.next();
      current = next.done ? undefined : next.value;
    }
  } catch (err) {
    yield sseEvent({ error: openAiError(toApiError(err)) });
  } finally {
    await rest.return?.(undefined);
  }
}

/** POST /v1/chat/completions: refusals are thrown before anything is sent (so they keep their status). */
export async function chatCompletions(ctx: ChatContext, body: WireChatBody): Promise<RawReply | StreamReply> {
  const call = callOf(ctx, body);
  if (!body.stream) return json(ctx.requestId, toCompletion(ctx.requestId, await chat(call)));
  const stream = chatStream(call);
  const first = await stream.next();
  if (first.done) throw new Error('chat stream ended before it started');
  return reply.stream(events(ctx, first.value, stream, !!body.stream_options?.include_usage), {
    headers: { 'x-request-id': ctx.requestId },
  });
}

/** `base64`: the vector's float32 little-endian bytes (what the openai client asks for by default). */
const asBase64 = (v: number[]) => Buffer.from(new Float32Array(v).buffer).toString('base64');

type EmbeddingInput = string | string[] | number[] | number[][];

/**
 * Every input form OpenAI takes, as texts: token ids are decoded with the tokenizer the gateway counts
 * with (o200k_base), then held to the same length as a text.
 */
async function embeddingTexts(input: EmbeddingInput): Promise<string[]> {
  if (typeof input === 'string') return [input];
  if (!input.length || typeof input[0] === 'string') return input as string[];
  const one = typeof input[0] === 'number';
  const lists = one ? [input as number[]] : (input as number[][]);
  const texts: string[] = [];
  for (const [i, ids] of lists.entries()) {
    const path = one ? 'body.input' : `body.input.${i}`;
    const text = await decodeTokens(ids).catch(() => {
      throw validationError([{ path, message: 'Holds an id that is not a token of o200k_base' }]);
    });
    if (text.length > GATEWAY_LIMITS.embeddingChars)
      throw validationError([{ path, message: `Decodes to more than ${GATEWAY_LIMITS.embeddingChars} characters` }]);
    texts.push(text);
  }
  return texts;
}

export async function embeddings(
  ctx: ChatContext,
  body: { model: string; input: EmbeddingInput; encoding_format?: 'float' | 'base64' },
) {
  const input = await embeddingTexts(body.input);
  const out = await embed({ ...ctx, model: body.model, input, later: afterAnswer });
  const encode = body.encoding_format === 'base64' ? asBase64 : (v: number[]) => v;
  return json(ctx.requestId, {
    object: 'list',
    data: out.vectors.map((v, index) => ({ object: 'embedding', index, embedding: encode(v) })),
    model: out.model,
    usage: { prompt_tokens: out.usage.promptTokens, total_tokens: out.usage.totalTokens },
  });
}

type ModelsContext = { tenantId: string; keyId: string | null; requestId: string };
const keyOf = (ctx: ModelsContext) =>
  ctx.keyId ? currentKey(ctx.tenantId, ctx.keyId).then((k) => k ?? null) : Promise.resolve(null);
const modelObject = (m: CatalogModel) => ({
  id: m.name,
  object: 'model',
  created: Math.floor(Date.parse(m.createdAt) / 1000) || 0,
  owned_by: m.provider,
});

/** GET /v1/models: the active catalog models the caller's key (as it is now) may use; a user may use all. */
export async function modelList(ctx: ModelsContext) {
  const [key, models] = await Promise.all([keyOf(ctx), listModels({ activeOnly: true })]);
  return json(ctx.requestId, { object: 'list', data: models.filter((m) => keyAllows(key, m)).map(modelObject) });
}

/** GET /v1/models/{model}: one of them, by name (as clients ask); any other is model_not_found, as a call would answer. */
export async function modelOne(ctx: ModelsContext, name: string) {
  const [key, model] = await Promise.all([keyOf(ctx), resolveModel(name)]);
  if (!model || model.name !== name || !model.isActive || !keyAllows(key, model)) throw modelNotFound(name);
  return json(ctx.requestId, modelObject(model));
}
