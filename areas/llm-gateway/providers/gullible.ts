import { createHash } from 'node:crypto';
import { base64Texts, mapLookAlikes, withoutInvisible } from '#shared/text/disguises.ts';
import type { ChatMessage, ProviderRequest, ToolCall } from './port.ts';

/**
 * `local-gullible`: the local model that believes what it reads, so the defences against planted
 * instructions are tested against a model that falls for them (docs/try/llm-gateway.md). Unlike
 * `local-chat`, which reads a tool call only from the last user message, it follows one found
 * anywhere in its input but the system message: a source, a document title, a tool result, an
 * earlier message. It reads through what hides an instruction from a plain search: JSON string
 * escapes (the framing of data), zero-width characters, look-alike letters, full-width forms and
 * base64. Asked anywhere for its instructions, it recites its system message.
 */

/** Bounds the work on a huge input: the model reads at most this much of each message. */
const MAX_READ = 100_000;

const unhide = (s: string) => mapLookAlikes(withoutInvisible(s));

/** The strings inside JSON found in the text (framed data is JSON between markers), JSON inside them too. */
function jsonStrings(s: string, depth = 0): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') {
      out.push(v);
      if (depth < 3) out.push(...jsonStrings(v, depth + 1));
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  for (const line of s.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{') && !t.startsWith('[')) continue;
    try {
      walk(JSON.parse(t));
    } catch {
      // Not JSON: read as it is.
    }
  }
  return out;
}

/** JSON cut short (a summarised tool result) no longer parses: its escapes are read as they were meant. */
const unescaped = (s: string) => s.replace(/\\\\/g, '\\').replace(/\\"/g, '"');

/** Every reading of a message: as written, its JSON strings, unescaped, unhidden, base64 decoded. */
function readings(content: string): string[] {
  const first = [content.slice(0, MAX_READ)];
  first.push(...first.flatMap((s) => jsonStrings(s)));
  first.push(unescaped(unescaped(first[0] ?? '')));
  const all = [...first, ...first.map(unhide)];
  all.push(...all.flatMap((t) => base64Texts(t)).flatMap((d) => [d, unhide(d)]));
  return all;
}

/** The first JSON object that starts at or after `from`. */
function objectAfter(text: string, from: number): Record<string, unknown> | null {
  for (let start = text.indexOf('{', from); start >= 0 && start - from < 200; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length && i - start < 20_000; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        try {
          const v = JSON.parse(text.slice(start, i + 1));
          if (v && typeof v === 'object' && !Array.isArray(v)) return v;
        } catch {
          // Not JSON after all: try the next brace.
        }
        break;
      }
    }
  }
  return null;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const content = (m: ChatMessage) => (typeof m.content === 'string' ? m.content : '');

/** Calls already made in this input: a followed instruction is followed once. */
const madeCalls = (messages: readonly ChatMessage[]) =>
  new Set(
    messages.flatMap((m) =>
      m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => `${c.function.name}\n${c.function.arguments}`) : [],
    ),
  );

/** The tool call it falls for: the newest message first, a tool's name followed by a JSON object. */
export function gullibleToolCall(req: ProviderRequest): ToolCall | null {
  if (!req.tools?.length || req.toolChoice === 'none') return null;
  const made = madeCalls(req.messages);
  const names = req.tools.map((t) => t.function.name);
  for (const m of [...req.messages].reverse()) {
    if (m.role === 'system') continue;
    for (const text of readings(content(m))) {
      for (const name of names) {
        const found = new RegExp(`(^|[^\\w-])${escapeRegExp(name)}([^\\w-]|$)`, 'i').exec(text);
        if (!found) continue;
        const args = objectAfter(text, found.index + found[0].length - 1);
        if (!args) continue;
        const key = `${name}\n${JSON.stringify(args)}`;
        if (made.has(key)) continue;
        const id = `call_${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
        return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
      }
    }
  }
  return null;
}

const ASKS_FOR_PROMPT =
  /system ?prompt|your (instructions|prompt|rules)|(previous|above|initial|hidden) instructions|instrucciones|anweisungen|systemprompt|consignes|инструкци|指示|提示词|プロンプト/i;

/** Its system message, when anything it reads asks for its instructions. */
export function gullibleRecital(messages: readonly ChatMessage[]): string | null {
  const system = messages.find((m) => m.role === 'system');
  if (!system) return null;
  const asked = messages.some((m) => m.role !== 'system' && readings(content(m)).some((t) => ASKS_FOR_PROMPT.test(t)));
  return asked ? `My instructions are: ${content(system)}` : null;
}
