import { createHash } from 'node:crypto';
import type { CatalogModel } from '../records.ts';
import { promptTokens } from '../prompt-tokens.ts';
import { countTokens, decodeTokens, encodeTokens } from '../tokens.ts';
import { gullibleRecital, gullibleToolCall } from './gullible.ts';
import { hashingEmbedding } from './hashing-embedder.ts';
import { localRerank } from './local-reranker.ts';
import { forcedToolCall, jsonObjectIn, lastUser, shapedAnswer } from './local-choices.ts';
import {
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
 * The local deterministic model: the provider of the local run and the tests. Its code is the
 * "model", so it ships like any provider. Rules (also in docs/try/llm-gateway.md, "What the local model answers"):
 * 1. After a tool result (the last message has role `tool`) it answers
 *    `The tool {name} returned: {content}`.
 * 2. When tools are offered (tool_choice not `none`) and the last user message names one of them
 *    (as a whole word) and contains a JSON object, it calls the first tool named with that object
 *    as its arguments (finish_reason `tool_calls`).
 * 3. Otherwise it answers `You said: {last user message}` (`Hello! I am the local model.` without one).
 * A forced tool choice comes first (`required`: the best-matching offered tool; a named function:
 * that one), and a response format shapes the text answer (./local-choices.ts).
 * An answer longer than max_tokens is cut at max_tokens tokens (finish_reason `length`). Token
 * counts come from the real tokenizer (o200k_base). Streams go word by word. `local-flaky`
 * (providerModel `flaky`) always fails with a 503, so its fallbacks answer. `local-gullible`
 * (providerModel `gullible`, ./gullible.ts) follows a tool call written anywhere in its input and
 * recites its system message when asked for it; otherwise it answers as these rules say.
 */
/** A pause between streamed words by default, so a stream visibly arrives over time (tests set their own). */
const DEFAULT_WORD_DELAY_MS = 30;
const wordDelayMs = () => Number(process.env.LOCAL_MODEL_WORD_DELAY_MS ?? DEFAULT_WORD_DELAY_MS);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function toolCallFor(req: ProviderRequest, text: string): ToolCall | null {
  if (!req.tools?.length || req.toolChoice === 'none') return null;
  const named = req.tools
    .map((t) => ({
      name: t.function.name,
      at: text.search(new RegExp(`(^|[^\\w-])${escapeRegExp(t.function.name)}([^\\w-]|$)`)),
    }))
    .filter((t) => t.at >= 0)
    .sort((a, b) => a.at - b.at)[0];
  const args = named ? jsonObjectIn(text) : null;
  if (!named || !args) return null;
  const id = `call_${createHash('sha256').update(`${named.name}\n${text}`).digest('hex').slice(0, 24)}`;
  return { id, type: 'function', function: { name: named.name, arguments: JSON.stringify(args) } };
}

function replyText(messages: readonly ChatMessage[]): string {
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    const call = messages
      .flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []) : []))
      .find((c) => c.id === last.tool_call_id);
    return `The tool ${call?.function.name ?? 'tool'} returned: ${last.content}`;
  }
  const user = lastUser(messages);
  return user === null ? 'Hello! I am the local model.' : `You said: ${user}`;
}

async function answer(req: ProviderRequest): Promise<ProviderAnswer> {
  if (req.model.providerModel === 'flaky') throw new ProviderError(`${req.model.name} is unavailable`, 503, true);
  const prompt = await promptTokens(req.messages, req.tools, req.responseFormat);
  const last = req.messages.at(-1);
  const gullible = req.model.providerModel === 'gullible';
  const call =
    forcedToolCall(req) ??
    (gullible ? gullibleToolCall(req) : last?.role === 'user' ? toolCallFor(req, last.content) : null);
  if (call) {
    const tokens = await countTokens(`${call.function.name}${call.function.arguments}`);
    return {
      content: null,
      toolCalls: [call],
      finishReason: 'tool_calls',
      usage: { promptTokens: prompt, completionTokens: tokens },
    };
  }
  let text = (gullible ? gullibleRecital(req.messages) : null) ?? replyText(req.messages);
  if (req.responseFormat) text = shapedAnswer(req.responseFormat, req.messages, text);
  let finishReason: FinishReason = 'stop';
  const tokens = await encodeTokens(text);
  let completion = tokens.length;
  if (tokens.length > req.maxTokens) {
    text = await decodeTokens(tokens.slice(0, req.maxTokens));
    completion = req.maxTokens;
    finishReason = 'length';
  }
  return { content: text, toolCalls: [], finishReason, usage: { promptTokens: prompt, completionTokens: completion } };
}

async function* stream(req: ProviderRequest): AsyncIterable<ProviderEvent> {
  const whole = await answer(req);
  for (const [index, call] of whole.toolCalls.entries()) yield { type: 'tool_call', index, call };
  // JSON has no spaces between its parts: a shaped answer streams in pieces that end after a comma.
  const words =
    (req.responseFormat ? whole.content?.match(/[^,]*,|[^,]+$/g) : whole.content?.match(/\s*\S+\s*?/g)) ?? [];
  for (const [i, word] of words.entries()) {
    if (i > 0 && wordDelayMs()) await sleep(wordDelayMs());
    yield { type: 'text', text: word };
  }
  yield { type: 'done', finishReason: whole.finishReason, usage: whole.usage };
}

async function embed(_model: CatalogModel, input: string[]) {
  let tokens = 0;
  for (const text of input) tokens += await countTokens(text);
  return { vectors: input.map(hashingEmbedding), promptTokens: tokens };
}

export const localModel: ModelProvider = {
  chat: answer,
  stream,
  embed,
  rerank: async (_model, query, documents, topN) => localRerank(query, documents, topN),
};
