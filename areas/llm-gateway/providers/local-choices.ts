import { createHash } from 'node:crypto';
import { jsonFromSchema } from './json-from-schema.ts';
import type { ChatMessage, ProviderRequest, ResponseFormat, ToolCall, ToolDef } from './port.ts';

/**
 * What the local models do when the request decides for them: a forced tool choice (`required`, a
 * named function) and a response format. Deterministic, so tests and people can predict the answer
 * (docs/try/llm-gateway.md, "Shapes and tool choices").
 */

/** The first JSON object in a text (what the local model reads as arguments or values). */
export function jsonObjectIn(text: string): Record<string, unknown> | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  try {
    const value = JSON.parse(text.slice(start, end + 1));
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

export const lastUser = (messages: readonly ChatMessage[]) =>
  [...messages].reverse().find((m) => m.role === 'user')?.content ?? null;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const wholeWord = (name: string) => new RegExp(`(^|[^\\w-])${escapeRegExp(name)}([^\\w-]|$)`, 'i');
/** `get_weather`, `getWeather`, `get-weather` -> get, weather. */
const nameParts = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .map((p) => p.toLowerCase())
    .filter((p) => p.length > 2);

/**
 * The offered tool that best matches the text: one it names as a whole word; else the one with most
 * of its name's words in the text; the first offered when none matches.
 */
function bestTool(tools: readonly ToolDef[], text: string): ToolDef {
  const named = tools
    .map((t) => ({ t, at: text.search(wholeWord(t.function.name)) }))
    .filter((x) => x.at >= 0)
    .sort((a, b) => a.at - b.at)[0];
  if (named) return named.t;
  const words = new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u));
  let best = tools[0]!;
  let score = 0;
  for (const t of tools) {
    const s = nameParts(t.function.name).filter((p) => words.has(p)).length;
    if (s > score) [best, score] = [t, s];
  }
  return best;
}

/** A call of this tool with arguments valid against its parameters, values from the text's JSON object. */
function callOf(tool: ToolDef, text: string): ToolCall {
  const args = jsonFromSchema(tool.function.parameters ?? { type: 'object' }, text, jsonObjectIn(text) ?? undefined);
  const id = `call_${createHash('sha256').update(`${tool.function.name}\n${text}`).digest('hex').slice(0, 24)}`;
  return { id, type: 'function', function: { name: tool.function.name, arguments: JSON.stringify(args) } };
}

/**
 * The call a forced tool choice makes: `required` the best-matching tool, `{type: function}` that
 * function whatever the message names; null when the choice is not forced. It applies after a tool
 * result too, as a forced choice does (clients reset it after a call when they loop).
 */
export function forcedToolCall(req: ProviderRequest): ToolCall | null {
  const choice = req.toolChoice;
  if (!req.tools?.length || !choice || choice === 'auto' || choice === 'none') return null;
  const text = lastUser(req.messages) ?? '';
  const tool =
    choice === 'required' ? bestTool(req.tools, text) : req.tools.find((t) => t.function.name === choice.function.name);
  return tool ? callOf(tool, text) : null;
}

/** What the strings of a shaped answer are made of: the tool result just given, else the user's last words. */
function sourceText(messages: readonly ChatMessage[]): string {
  const last = messages.at(-1);
  if (last?.role === 'tool') return last.content;
  return lastUser(messages) ?? 'Hello! I am the local model.';
}

/**
 * The answer in the asked shape: for a schema, JSON valid against it (values from the last user
 * message's JSON object where they fit, strings from the conversation); for JSON mode,
 * `{"reply": <the text answer>}`.
 */
export function shapedAnswer(format: ResponseFormat, messages: readonly ChatMessage[], reply: string): string {
  if (format.type === 'json_object') return JSON.stringify({ reply });
  const user = lastUser(messages);
  return JSON.stringify(jsonFromSchema(format.schema, sourceText(messages), (user && jsonObjectIn(user)) ?? undefined));
}
