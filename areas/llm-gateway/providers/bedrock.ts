import type {
  BedrockRuntimeClient,
  ContentBlock,
  ConverseCommandInput,
  Message,
  StopReason,
  SystemContentBlock,
  Tool,
  ToolChoice as BedrockToolChoice,
} from '@aws-sdk/client-bedrock-runtime';
import type { CatalogModel } from '../records.ts';
import { converseShape } from './bedrock-output.ts';
import {
  FormatUnsupported,
  ProviderError,
  type ChatMessage,
  type FinishReason,
  type ModelProvider,
  type ProviderAnswer,
  type ProviderEvent,
  type ProviderRequest,
  type ToolCall,
} from './port.ts';

/**
 * Amazon Bedrock: chat through Converse / ConverseStream (tools included), embeddings through
 * InvokeModel with a Titan-style body (`{inputText}` in, `{embedding, inputTextTokenCount}` out).
 * The model is the catalog entry's `providerModel` (a Bedrock model or inference-profile id).
 */
type Sdk = typeof import('@aws-sdk/client-bedrock-runtime');
let loading: Promise<{ sdk: Sdk; client: BedrockRuntimeClient }> | undefined;
/** The SDK loads on the first Bedrock call (a lazy package beside the bundle, lib/bundling.ts). */
function bedrock() {
  loading ??= import('@aws-sdk/client-bedrock-runtime').then((sdk) => ({
    sdk,
    client: new sdk.BedrockRuntimeClient({ maxAttempts: 1 }),
  }));
  return loading;
}

/** Bedrock's failures that a fallback may fix (5xx, throttling, timeouts, a model not ready). */
const RETRYABLE = new Set([
  'ThrottlingException',
  'ServiceUnavailableException',
  'InternalServerException',
  'ModelTimeoutException',
  'ModelNotReadyException',
  'ModelStreamErrorException',
  'ServiceQuotaExceededException',
]);

function toProviderError(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode ?? (RETRYABLE.has(e.name ?? '') ? 503 : 500);
  const retryable = RETRYABLE.has(e.name ?? '') || status >= 500 || status === 429;
  return new ProviderError(`Bedrock: ${e.name ?? 'error'}`, status, retryable);
}

const text = (tenantId: string): ContentBlock => ({ text: tenantId });

/** OpenAI messages as Bedrock's: system apart, tool results as user turns, same-role turns merged. */
function toBedrockMessages(messages: readonly ChatMessage[]): {
  system: SystemContentBlock[];
  messages: Message[];
} {
  const system: SystemContentBlock[] = [];
  const out: Message[] = [];
  const push = (role: 'user' | 'assistant', content: ContentBlock[]) => {
    const last = out.at(-1);
    if (last?.role === role) last.content = [...(last.content ?? []), ...content];
    else out.push({ role, content });
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        system.push({ text: m.content });
        break;
      case 'user':
        push('user', [text(m.content)]);
        break;
      case 'assistant':
        push('assistant', [
          ...(m.content ? [text(m.content)] : []),
          ...(m.tool_calls ?? []).map(
            (c): ContentBlock => ({
              toolUse: { toolUseId: c.id, name: c.function.name, input: parseArgs(c.function.arguments) as never },
            }),
          ),
        ]);
        break;
      case 'tool':
        push('user', [{ toolResult: { toolUseId: m.tool_call_id, content: [{ text: m.content }] } }]);
        break;
    }
  }
  return { system, messages: out };
}

function parseArgs(args: string): Record<string, unknown> {
  try {
    const v = JSON.parse(args);
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}

function toolsOf(req: ProviderRequest): Tool[] {
  if (!req.tools?.length || req.toolChoice === 'none') return [];
  return req.tools.map((t) => ({
    toolSpec: {
      name: t.function.name,
      description: t.function.description,
      inputSchema: { json: (t.function.parameters ?? { type: 'object', properties: {} }) as never },
    },
  }));
}

function toolChoiceOf(req: ProviderRequest): BedrockToolChoice | undefined {
  const c = req.toolChoice;
  return c === 'required'
    ? { any: {} }
    : typeof c === 'object'
      ? { tool: { name: c.function.name } }
      : c === 'auto'
        ? { auto: {} }
        : undefined;
}

/** The Converse request, and the tool standing for the answer when the shape is a forced tool. */
function converseInput(req: ProviderRequest): { input: ConverseCommandInput; responseTool: string | null } {
  const { system, messages } = toBedrockMessages(req.messages);
  const shape = converseShape(req, toolsOf(req), toolChoiceOf(req));
  const input: ConverseCommandInput = {
    modelId: req.model.providerModel,
    messages,
    ...(system.length ? { system } : {}),
    inferenceConfig: {
      maxTokens: req.maxTokens,
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    },
    ...(shape.toolConfig ? { toolConfig: shape.toolConfig } : {}),
    ...(shape.outputConfig ? { outputConfig: shape.outputConfig } : {}),
  };
  return { input, responseTool: shape.responseTool };
}

/**
 * Bedrock's ValidationException on a request that carried a shape: the likeliest cause is the schema
 * (a keyword the model's structured output does not take), so the caller hears the format's name.
 */
function refusal(err: unknown, req: ProviderRequest): Error {
  if (req.responseFormat && (err as { name?: string }).name === 'ValidationException')
    return new FormatUnsupported(`${req.model.name} (Bedrock) refused the request with this response format`);
  return toProviderError(err);
}

const finishOf = (reason: StopReason | string | undefined): FinishReason =>
  reason === 'tool_use'
    ? 'tool_calls'
    : reason === 'max_tokens'
      ? 'length'
      : reason === 'guardrail_intervened' || reason === 'content_filtered'
        ? 'content_filter'
        : 'stop';

async function chat(req: ProviderRequest): Promise<ProviderAnswer> {
  const { sdk, client } = await bedrock();
  const { input, responseTool } = converseInput(req);
  const out = await client.send(new sdk.ConverseCommand(input)).catch((err) => {
    throw refusal(err, req);
  });
  const blocks = out.output?.message?.content ?? [];
  const usage = { promptTokens: out.usage?.inputTokens ?? 0, completionTokens: out.usage?.outputTokens ?? 0 };
  const answered = responseTool ? blocks.find((b) => b.toolUse?.name === responseTool)?.toolUse : undefined;
  const others = blocks.filter((b) => !(b.toolUse && b.toolUse.name === responseTool));
  const toolCalls: ToolCall[] = others.flatMap((b) =>
    b.toolUse
      ? [
          {
            id: b.toolUse.toolUseId ?? '',
            type: 'function' as const,
            function: { name: b.toolUse.name ?? '', arguments: JSON.stringify(b.toolUse.input ?? {}) },
          },
        ]
      : [],
  );
  // The answer tool's input is the answer; any words beside it are the model's preamble, not the shape.
  if (answered && !toolCalls.length) {
    const finishReason =
      out.stopReason === 'max_tokens'
        ? 'length'
        : finishOf(out.stopReason === 'tool_use' ? 'end_turn' : out.stopReason);
    return { content: JSON.stringify(answered.input ?? {}), toolCalls: [], finishReason, usage };
  }
  const content =
    responseTool && toolCalls.length ? '' : others.flatMap((b) => (b.text !== undefined ? [b.text] : [])).join('');
  return {
    content: content || (toolCalls.length ? null : ''),
    toolCalls,
    finishReason: finishOf(out.stopReason),
    usage,
  };
}

/** ConverseStream's events as the port's: text as it comes, each tool call once its input is complete. */
async function* stream(req: ProviderRequest): AsyncIterable<ProviderEvent> {
  const { sdk, client } = await bedrock();
  const { input, responseTool } = converseInput(req);
  const out = await client.send(new sdk.ConverseStreamCommand(input)).catch((err) => {
    throw refusal(err, req);
  });
  const tools = new Map<number, { id: string; name: string; input: string }>();
  let toolIndex = 0;
  let finishReason: FinishReason = 'stop';
  let usage = { promptTokens: 0, completionTokens: 0 };
  // With the answer as a tool, its input streams as the text; other words are held back, and sent
  // only if the model never called it.
  let held = '';
  let shaped = false;
  try {
    for await (const event of out.stream ?? []) {
      if (event.contentBlockStart?.start?.toolUse) {
        const { toolUseId = '', name = '' } = event.contentBlockStart.start.toolUse;
        tools.set(event.contentBlockStart.contentBlockIndex ?? 0, { id: toolUseId, name, input: '' });
        if (responseTool && name === responseTool) shaped = true;
      } else if (event.contentBlockDelta?.delta) {
        const { delta, contentBlockIndex = 0 } = event.contentBlockDelta;
        const tool = tools.get(contentBlockIndex);
        if (delta.text) {
          if (responseTool) held += delta.text;
          else yield { type: 'text', text: delta.text };
        }
        if (tool && delta.toolUse?.input) {
          if (responseTool && tool.name === responseTool) yield { type: 'text', text: delta.toolUse.input };
          else tool.input += delta.toolUse.input;
        }
      } else if (event.contentBlockStop) {
        const tool = tools.get(event.contentBlockStop.contentBlockIndex ?? 0);
        if (tool && !(responseTool && tool.name === responseTool)) {
          yield {
            type: 'tool_call',
            index: toolIndex++,
            call: { id: tool.id, type: 'function', function: { name: tool.name, arguments: tool.input || '{}' } },
          };
        }
      } else if (event.messageStop) {
        const reason = event.messageStop.stopReason;
        finishReason = finishOf(shaped && toolIndex === 0 && reason === 'tool_use' ? 'end_turn' : reason);
      } else if (event.metadata?.usage) {
        usage = {
          promptTokens: event.metadata.usage.inputTokens ?? 0,
          completionTokens: event.metadata.usage.outputTokens ?? 0,
        };
      } else {
        const failure = Object.entries(event).find(([k, v]) => k.endsWith('Exception') && v);
        if (failure) throw toProviderError({ name: failure[0].replace(/^./, (c) => c.toUpperCase()) });
      }
    }
  } catch (err) {
    throw toProviderError(err);
  }
  if (held && !shaped && !toolIndex) yield { type: 'text', text: held };
  yield { type: 'done', finishReason, usage };
}

const decoder = new TextDecoder();

async function embed(model: CatalogModel, input: string[]) {
  const { sdk, client } = await bedrock();
  const answers = await Promise.all(
    input.map((inputText) =>
      client
        .send(
          new sdk.InvokeModelCommand({
            modelId: model.providerModel,
            contentType: 'application/json',
            accept: 'application/json',
            body: JSON.stringify({ inputText }),
          }),
        )
        .then((out) => JSON.parse(decoder.decode(out.body)) as { embedding: number[]; inputTextTokenCount?: number })
        .catch((err) => {
          throw toProviderError(err);
        }),
    ),
  );
  return {
    vectors: answers.map((a) => a.embedding),
    promptTokens: answers.reduce((s, a) => s + (a.inputTextTokenCount ?? 0), 0),
  };
}

/**
 * Rerank through InvokeModel, the body Cohere Rerank 3.5 and Amazon Rerank 1.0 take on Bedrock
 * (`query`, `documents`, `top_n`; Cohere's also `api_version: 2`), answered as
 * `{results: [{index, relevance_score}]}`. Bedrock bills these per query, not per token: the
 * gateway meters what the reranker read, in tokens, at the catalog model's input price.
 */
async function rerank(model: CatalogModel, query: string, documents: string[], topN: number) {
  const { sdk, client } = await bedrock();
  const cohere = model.providerModel.startsWith('cohere.');
  const out = await client
    .send(
      new sdk.InvokeModelCommand({
        modelId: model.providerModel,
        contentType: 'application/json',
        accept: 'application/json',
        body: JSON.stringify({ query, documents, top_n: topN, ...(cohere ? { api_version: 2 } : {}) }),
      }),
    )
    .catch((err) => {
      throw toProviderError(err);
    });
  const body = JSON.parse(decoder.decode(out.body)) as { results?: { index: number; relevance_score: number }[] };
  // Bedrock reports no token count for a rerank: the gateway meters its own.
  return { ranked: (body.results ?? []).map((r) => ({ index: r.index, score: r.relevance_score })) };
}

export function bedrockProvider(): ModelProvider {
  return { chat, stream, embed, rerank };
}
