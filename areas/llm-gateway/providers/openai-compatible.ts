import type { readSecret as ReadSecret } from '#areas/vault/for-llm-gateway.ts';
import type { CatalogModel } from '../records.ts';
import {
  FormatUnsupported,
  ProviderError,
  type FinishReason,
  type ModelProvider,
  type ProviderAnswer,
  type ProviderEvent,
  type ProviderRequest,
  type ResponseFormat,
  type ToolCall,
} from './port.ts';

/**
 * Any OpenAI-compatible endpoint (a self-hosted model server or a hosted one): the catalog entry's
 * `baseUrl` (up to `/v1`) and `providerModel`, with the API key read from the vault
 * (`apiKeySecret` = `{environment}/{KEY}`, a platform secret kept by the vault routes) on each call
 * through the vault's 30-second cache. 5xx, 429 and timeouts move the call to its fallbacks.
 */
const TIMEOUT_MS = 120_000;

/*
 * The vault's reader is handed in by providers/index.ts (imported there at start) rather than imported
 * here: this module loads on first use, and a module reached through `import()` that also reaches the
 * platform ports makes esbuild wrap them, which keeps every export of the SSM client in the bundle.
 */
type SecretReader = typeof ReadSecret;

async function apiKeyOf(readSecret: SecretReader, model: CatalogModel): Promise<string | null> {
  if (!model.apiKeySecret) return null;
  const [environment, key] = model.apiKeySecret.split('/', 2) as [string, string];
  const secret = await readSecret(environment, key);
  if (!secret) throw new ProviderError(`The API key of ${model.name} is not in the vault`, 500, false);
  return secret.value;
}

/**
 * An endpoint that refuses the request's response_format (a 400 whose error names it) has refused the
 * shape, not the call: the caller hears which field, never a 503. Its own words stay out of the answer.
 */
async function refusedFormat(res: Response): Promise<boolean> {
  const text = await res.text().catch(() => '');
  try {
    const error = (JSON.parse(text.slice(0, 20_000)) as { error?: { param?: unknown; message?: unknown } }).error;
    return String(error?.param ?? '').startsWith('response_format') || /response_format/.test(String(error?.message));
  } catch {
    return /response_format/.test(text.slice(0, 20_000));
  }
}

async function post(
  readSecret: SecretReader,
  model: CatalogModel,
  path: string,
  body: unknown,
  shaped = false,
): Promise<Response> {
  const apiKey = await apiKeyOf(readSecret, model);
  let res: Response;
  try {
    res = await fetch(`${model.baseUrl!.replace(/\/$/, '')}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    throw new ProviderError(`${model.name}: no answer from the endpoint`, 504, true);
  }
  if (!res.ok) {
    if (shaped && res.status === 400 && (await refusedFormat(res)))
      throw new FormatUnsupported(`${model.name} refused this response format`);
    await res.body?.cancel().catch(() => undefined);
    throw new ProviderError(
      `${model.name}: the endpoint answered ${res.status}`,
      res.status,
      res.status >= 500 || res.status === 429,
    );
  }
  return res;
}

/** The port's format as OpenAI's chat completions spell it: the endpoint gets what the client sent. */
const wireFormat = (f: ResponseFormat) =>
  f.type === 'json_object'
    ? f
    : {
        type: 'json_schema',
        json_schema: {
          name: f.name,
          ...(f.description ? { description: f.description } : {}),
          schema: f.schema,
          strict: f.strict,
        },
      };

const request = (req: ProviderRequest, stream: boolean) => ({
  model: req.model.providerModel,
  messages: req.messages,
  ...(req.tools?.length ? { tools: req.tools } : {}),
  ...(req.toolChoice ? { tool_choice: req.toolChoice } : {}),
  ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
  max_tokens: req.maxTokens,
  ...(req.responseFormat ? { response_format: wireFormat(req.responseFormat) } : {}),
  ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
});

const finishOf = (reason: unknown): FinishReason =>
  reason === 'tool_calls' || reason === 'length' || reason === 'content_filter' ? reason : 'stop';

interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
}
const usageOf = (u: WireUsage | undefined) => ({
  promptTokens: u?.prompt_tokens ?? 0,
  completionTokens: u?.completion_tokens ?? 0,
});

async function chat(readSecret: SecretReader, req: ProviderRequest): Promise<ProviderAnswer> {
  const res = await post(readSecret, req.model, '/chat/completions', request(req, false), !!req.responseFormat);
  const body = (await res.json()) as {
    choices?: { message?: { content?: string | null; tool_calls?: ToolCall[] }; finish_reason?: string }[];
    usage?: WireUsage;
  };
  const choice = body.choices?.[0];
  return {
    content: choice?.message?.content ?? null,
    toolCalls: choice?.message?.tool_calls ?? [],
    finishReason: finishOf(choice?.finish_reason),
    usage: usageOf(body.usage),
  };
}

/**
 * The `data` of each server-sent event as it arrives, through eventsource-parser (loaded with the
 * first stream: a function that never streams from such an endpoint never loads it), which takes
 * events split anywhere across chunks, CRLF or CR line ends and comments. Imported once: a dynamic
 * import per stream goes through the module loader every time.
 */
let parserModule: Promise<typeof import('eventsource-parser')> | undefined;
async function* sseData(body: ReadableStream<Uint8Array>): AsyncIterable<string> {
  parserModule ??= import('eventsource-parser');
  const { createParser } = await parserModule;
  const ready: string[] = [];
  const parser = createParser({
    onEvent: ({ data }) => {
      // The format drops one space after `data:`; more were always ignored too (`data:  [DONE]` ends).
      const payload = data.trimStart();
      if (payload) ready.push(payload);
    },
  });
  const decoder = new TextDecoder();
  for await (const bytes of body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(bytes, { stream: true }));
    yield* ready.splice(0);
  }
  // An EventSource drops an event the stream ends in before its blank line; an answer has ended
  // there, so its last event counts.
  parser.feed(`${decoder.decode()}\n\n`);
  yield* ready.splice(0);
}

interface ChunkToolCall {
  index: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

async function* stream(readSecret: SecretReader, req: ProviderRequest): AsyncIterable<ProviderEvent> {
  const res = await post(readSecret, req.model, '/chat/completions', request(req, true), !!req.responseFormat);
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let finishReason: FinishReason = 'stop';
  let usage = { promptTokens: 0, completionTokens: 0 };
  for await (const data of sseData(res.body!)) {
    if (data === '[DONE]') break;
    const chunk = JSON.parse(data) as {
      choices?: { delta?: { content?: string | null; tool_calls?: ChunkToolCall[] }; finish_reason?: string | null }[];
      usage?: WireUsage | null;
      error?: { message?: string };
    };
    if (chunk.error) throw new ProviderError(`${req.model.name}: the stream failed`, 502, false);
    const choice = chunk.choices?.[0];
    if (choice?.delta?.content) yield { type: 'text', text: choice.delta.content };
    for (const d of choice?.delta?.tool_calls ?? []) {
      const call = calls.get(d.index) ?? { id: '', name: '', arguments: '' };
      call.id ||= d.id ?? '';
      call.name ||= d.function?.name ?? '';
      call.arguments += d.function?.arguments ?? '';
      calls.set(d.index, call);
    }
    if (choice?.finish_reason) finishReason = finishOf(choice.finish_reason);
    if (chunk.usage) usage = usageOf(chunk.usage);
  }
  for (const [index, c] of [...calls].sort(([a], [b]) => a - b)) {
    yield {
      type: 'tool_call',
      index,
      call: { id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments || '{}' } },
    };
  }
  yield { type: 'done', finishReason, usage };
}

async function embed(readSecret: SecretReader, model: CatalogModel, input: string[]) {
  const res = await post(readSecret, model, '/embeddings', {
    model: model.providerModel,
    input,
    encoding_format: 'float',
  });
  const body = (await res.json()) as { data?: { index: number; embedding: number[] }[]; usage?: WireUsage };
  const vectors = [...(body.data ?? [])].sort((a, b) => a.index - b.index).map((d) => d.embedding);
  return { vectors, promptTokens: body.usage?.prompt_tokens ?? 0 };
}

/**
 * Rerank at `{baseUrl}/rerank`, the shape Cohere, Jina, vLLM and LiteLLM serve (`model`, `query`,
 * `documents`, `top_n`; `{results: [{index, relevance_score}], usage?}` back).
 */
async function rerank(readSecret: SecretReader, model: CatalogModel, query: string, documents: string[], topN: number) {
  const res = await post(readSecret, model, '/rerank', { model: model.providerModel, query, documents, top_n: topN });
  const body = (await res.json()) as {
    results?: { index: number; relevance_score: number }[];
    usage?: { total_tokens?: number; prompt_tokens?: number };
  };
  return {
    ranked: (body.results ?? []).map((r) => ({ index: r.index, score: r.relevance_score })),
    promptTokens: body.usage?.prompt_tokens ?? body.usage?.total_tokens,
  };
}

export function openAiCompatibleProvider(readSecret: SecretReader): ModelProvider {
  return {
    chat: (req) => chat(readSecret, req),
    stream: (req) => stream(readSecret, req),
    embed: (model, input) => embed(readSecret, model, input),
    rerank: (model, query, documents, topN) => rerank(readSecret, model, query, documents, topN),
  };
}
