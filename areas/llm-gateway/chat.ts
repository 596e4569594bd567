import { ApiError, validationError } from '#shared/http/errors.ts';
import { logger } from '#shared/runtime/logger.ts';
import { admit, finish, type Admission, type Later } from './admission.ts';
import { upstreamError } from './errors.ts';
import { promptTokens } from './prompt-tokens.ts';
import { providerFor } from './providers/index.ts';
import {
  isRetryable,
  type ChatMessage,
  type FinishReason,
  type ProviderEvent,
  type ProviderRequest,
  type ResponseFormat,
  type ToolCall,
  type ToolChoice,
  type ToolDef,
} from './providers/port.ts';
import type { Caller, CatalogModel } from './records.ts';
import {
  asFormatRefusal,
  CHAT_FORMAT_PARAMS,
  checkToolChoice,
  conformanceOf,
  nonConforming,
  type Conformance,
  type FormatParams,
} from './response-format.ts';
import { countTokens } from './tokens.ts';

export type { ChatMessage, ResponseFormat, ToolCall, ToolDef } from './providers/port.ts';

/** The gateway's chat entry point (docs/architecture.md, "LLM gateway"); the `/v1` route is its wire front. */
export interface ChatCall {
  tenantId: string;
  caller: Caller;
  requestId: string;
  /** Catalog name or id. */
  model: string;
  messages: ChatMessage[];
  tools?: ToolDef[];
  toolChoice?: ToolChoice;
  temperature?: number;
  maxTokens?: number;
  /** The shape the answer must take (JSON mode, or a JSON Schema); none: text. */
  responseFormat?: ResponseFormat;
  /** Which request fields a format refusal names (chat completions' by default). */
  formatParams?: FormatParams;
  /** Given: the settle and the usage record finish after the caller's answer (it waits for them before its invocation ends). */
  later?: Later;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ChatResult {
  /** The model that answered (a fallback's name when the asked one failed). */
  model: string;
  message: { content: string | null; toolCalls: ToolCall[] };
  finishReason: FinishReason;
  usage: Usage;
  costUsd: number;
}

/** A streamed answer: `start` names the answering model before any text, `done` comes last. */
export type ChatChunk =
  | { type: 'start'; model: string }
  | { type: 'text'; text: string }
  | { type: 'tool_call'; index: number; call: ToolCall }
  | { type: 'done'; model: string; finishReason: FinishReason; usage: Usage; costUsd: number };

/** Output tokens reserved when the request names no max_tokens. */
const DEFAULT_MAX_OUTPUT = 1024;

/** The request's own mistakes are found before admission: nothing is reserved for a call that cannot run. */
async function prepare(call: ChatCall): Promise<Admission & { conforms: Conformance | null }> {
  checkToolChoice(call.tools, call.toolChoice);
  const conforms = await conformanceOf(call.responseFormat, call.formatParams ?? CHAT_FORMAT_PARAMS);
  const prompt = await promptTokens(call.messages, call.tools, call.responseFormat);
  const a = await admit({
    tenantId: call.tenantId,
    caller: call.caller,
    requestId: call.requestId,
    model: call.model,
    kind: 'chat',
    promptTokens: prompt,
    maxOutput: call.maxTokens ?? DEFAULT_MAX_OUTPUT,
  });
  return Object.assign(a, { conforms });
}

function requestFor(call: ChatCall, model: CatalogModel, a: Admission): ProviderRequest {
  if (a.promptTokens >= model.contextWindow) {
    throw validationError([{ path: 'body.messages', message: `The prompt exceeds ${model.name}'s context window` }]);
  }
  return {
    model,
    messages: call.messages,
    tools: call.tools,
    toolChoice: call.toolChoice,
    temperature: call.temperature,
    maxTokens: Math.min(a.maxOutput, model.contextWindow - a.promptTokens),
    ...(call.responseFormat ? { responseFormat: call.responseFormat } : {}),
  };
}

const usageOf = (p: number, c: number): Usage => ({ promptTokens: p, completionTokens: c, totalTokens: p + c });

/**
 * One chat completion: admitted (refusals, reservations), tried on the model and then its fallbacks
 * (provider 5xx, throttling, timeout), settled to what the answering model used and billed at its
 * prices, recorded once. An answer that does not conform to a strict format is billed and refused
 * (MODEL_OUTPUT_INVALID), not retried: a retry would spend past the reservation, and a stream's text
 * is out before it could be checked.
 */
export async function chat(call: ChatCall): Promise<ChatResult> {
  const a = await prepare(call);
  let lastError: unknown;
  for (const model of a.chain) {
    try {
      const answer = await (await providerFor(model)).chat(requestFor(call, model, a));
      const costUsd = await finish(a, { model, ...answer.usage }, call.later);
      const invalid = answer.finishReason === 'stop' ? nonConforming(a.conforms, answer.content) : null;
      if (invalid) throw invalid;
      return {
        model: model.name,
        message: { content: answer.content, toolCalls: answer.toolCalls },
        finishReason: answer.finishReason,
        usage: usageOf(answer.usage.promptTokens, answer.usage.completionTokens),
        costUsd,
      };
    } catch (err) {
      if (err instanceof ApiError && err.code === 'MODEL_OUTPUT_INVALID') throw err;
      lastError = asFormatRefusal(err, call.formatParams ?? CHAT_FORMAT_PARAMS);
      if (!isRetryable(err)) break;
      logger.warn('model failed, trying its fallback', { model: model.name, requestId: call.requestId });
    }
  }
  await finish(a, { model: null, promptTokens: 0, completionTokens: 0 }, call.later);
  if (lastError instanceof ApiError) throw lastError;
  throw upstreamError();
}

/**
 * A streamed chat completion. The reservation and the refusals happen before the first chunk (a
 * refusal throws from the first `next()`); a model that fails before its first event falls back
 * to the next, one that fails after it ends the stream. A consumer that stops early is billed for
 * what the provider produced up to then.
 */
export async function* chatStream(call: ChatCall): AsyncGenerator<ChatChunk> {
  const a = await prepare(call);
  let started: { model: CatalogModel; events: AsyncIterator<ProviderEvent>; first: ProviderEvent } | null = null;
  let lastError: unknown;
  for (const model of a.chain) {
    try {
      const events = (await providerFor(model)).stream(requestFor(call, model, a))[Symbol.asyncIterator]();
      const first = await events.next();
      if (first.done) throw new Error('empty stream');
      started = { model, events, first: first.value };
      break;
    } catch (err) {
      lastError = asFormatRefusal(err, call.formatParams ?? CHAT_FORMAT_PARAMS);
      if (!isRetryable(err)) break;
      logger.warn('model failed before its first byte, trying its fallback', { model: model.name });
    }
  }
  if (!started) {
    await finish(a, { model: null, promptTokens: 0, completionTokens: 0 }, call.later);
    if (lastError instanceof ApiError) throw lastError;
    throw upstreamError();
  }
  const { model, events } = started;
  let produced = '';
  let text = '';
  let settled = false;
  try {
    yield { type: 'start', model: model.name };
    let event: ProviderEvent = started.first;
    for (;;) {
      if (event.type === 'done') {
        settled = true;
        const costUsd = await finish(a, { model, ...event.usage }, call.later);
        const invalid = event.finishReason === 'stop' && text ? nonConforming(a.conforms, text) : null;
        if (invalid) throw invalid;
        yield {
          type: 'done',
          model: model.name,
          finishReason: event.finishReason,
          usage: usageOf(event.usage.promptTokens, event.usage.completionTokens),
          costUsd,
        };
        return;
      }
      if (event.type === 'text') text += event.text;
      produced += event.type === 'text' ? event.text : `${event.call.function.name}${event.call.function.arguments}`;
      yield event;
      const next = await events.next();
      if (next.done) throw new Error('stream ended without its usage');
      event = next.value;
    }
  } finally {
    if (!settled) {
      // Abandoned by the consumer or broken by the provider: billed for what was produced.
      await events.return?.().catch(() => undefined);
      const completion = produced ? await countTokens(produced) : 0;
      await finish(a, { model, promptTokens: a.promptTokens, completionTokens: completion }, call.later);
    }
  }
}
