import type { CatalogModel } from '../records.ts';

/**
 * The one port every provider implements (local model, Bedrock, OpenAI-compatible). Messages and
 * tools are the OpenAI shapes the gateway speaks; each provider translates them.
 */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; content: string; tool_call_id: string };

export interface ToolDef {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/**
 * The shape the answer's text must take (OpenAI's `response_format` and the Responses API's
 * `text.format`; plain text is no format). `strict`: the gateway checks the answer against the schema.
 */
export type ResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; description?: string; schema: Record<string, unknown>; strict: boolean };

export interface ProviderRequest {
  model: CatalogModel;
  messages: ChatMessage[];
  tools?: ToolDef[];
  toolChoice?: ToolChoice;
  temperature?: number;
  /** The output cap (the request's, or the gateway's default). */
  maxTokens: number;
  responseFormat?: ResponseFormat;
}

interface ProviderUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ProviderAnswer {
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: ProviderUsage;
}

/** A piece of a streamed answer as the provider produces it; `done` comes last, once. */
export type ProviderEvent =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; index: number; call: ToolCall }
  | { type: 'done'; finishReason: FinishReason; usage: ProviderUsage };

interface EmbedAnswer {
  vectors: number[][];
  promptTokens: number;
}

/** The documents a reranker kept, best first: each by its index in the request, with its score. */
export interface RerankAnswer {
  ranked: { index: number; score: number }[];
  /** The tokens the provider says it read; absent, the gateway meters its own count (rerank.ts). */
  promptTokens?: number;
}

export interface ModelProvider {
  chat(req: ProviderRequest): Promise<ProviderAnswer>;
  stream(req: ProviderRequest): AsyncIterable<ProviderEvent>;
  embed(model: CatalogModel, input: string[]): Promise<EmbedAnswer>;
  rerank(model: CatalogModel, query: string, documents: string[], topN: number): Promise<RerankAnswer>;
}

/**
 * A provider's failure. `retryable` (5xx, throttling, timeout) moves the call to the model's
 * fallbacks; anything else (a request the provider refuses) ends it.
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/**
 * The model cannot answer in the asked shape (a schema feature it cannot follow, a format its
 * provider refuses): the gateway refuses the call naming the request's format field, never answering
 * plain text instead. Not retryable: a fallback of the same call would be asked the same shape.
 */
export class FormatUnsupported extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FormatUnsupported';
  }
}

export const isRetryable = (err: unknown) =>
  err instanceof ProviderError
    ? err.retryable
    : !(err instanceof FormatUnsupported) && !(err instanceof Error && err.name === 'ApiError');
